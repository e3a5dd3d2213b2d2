package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * values.schema.json turns operator mistakes into an install error that names the field, before
 * anything reaches the cluster. Each case is one mistake given the way an operator would make it;
 * the error must point at the field (helm prints a JSON pointer such as {@code
 * /cluster/discovery}).
 */
class ValuesSchemaTest {

  static Stream<Arguments> badValues() {
    return Stream.of(
        Arguments.of("replicaCount: -1", "/replicaCount", "minimum"),
        Arguments.of("replicaCount: 0", "/replicaCount", "minimum"),
        Arguments.of("replicaCount: three", "/replicaCount", "want integer"),
        Arguments.of("replicaCount: 2.5", "/replicaCount", "want integer"),
        Arguments.of("cluster: {discovery: nope}", "/cluster/discovery", "must be one of"),
        Arguments.of("cluster: {backupCount: 7}", "/cluster/backupCount", "maximum"),
        Arguments.of("cluster: {backupCount: -1}", "/cluster/backupCount", "minimum"),
        Arguments.of("cluster: {members: [no-port-here]}", "/cluster/members/0", "pattern"),
        Arguments.of("rest: {port: http}", "/rest/port", "want integer"),
        Arguments.of("rest: {port: 70000}", "/rest/port", "maximum"),
        Arguments.of("member: {port: 0}", "/member/port", "minimum"),
        Arguments.of("service: {type: Ingress}", "/service/type", "must be one of"),
        Arguments.of("auth: {insecure: \"yes\"}", "/auth/insecure", "want boolean"),
        Arguments.of("antiAffinity: always", "/antiAffinity", "must be one of"),
        Arguments.of(
            "terminationGracePeriodSeconds: 1", "/terminationGracePeriodSeconds", "minimum"),
        Arguments.of(
            "podDisruptionBudget: {maxUnavailable: 0}",
            "/podDisruptionBudget/maxUnavailable",
            "minimum"),
        Arguments.of("rules: [{name: login, limit: 0, window: 1m}]", "/rules/0/limit", "minimum"),
        Arguments.of(
            "rules: [{name: login, limit: 5, window: 5 minutes}]", "/rules/0/window", "pattern"),
        Arguments.of("rules: [{name: log in, limit: 5, window: 1m}]", "/rules/0/name", "pattern"),
        Arguments.of(
            "rules: [{name: login, limit: 5, window: 1m, algorithm: magic}]",
            "/rules/0/algorithm",
            "must be one of"),
        Arguments.of("rules: [{name: login, window: 1m}]", "/rules/0", "missing property 'limit'"),
        // The node refuses a burst or buckets its algorithm does not have; so does the chart.
        Arguments.of(
            "rules: [{name: login, limit: 5, window: 1m, burst: 20}]", "/rules/0/burst", "not"),
        Arguments.of(
            "rules: [{name: login, algorithm: fixed_window, limit: 5, window: 1m, burst: 20}]",
            "/rules/0/burst",
            "not"),
        Arguments.of(
            "rules: [{name: sms, algorithm: gcra, limit: 5, window: 1m, buckets: 6}]",
            "/rules/0/buckets",
            "not"),
        // A concurrency limit lives by permitTtl, every other algorithm by its window.
        Arguments.of(
            "rules: [{name: jobs, algorithm: concurrency, limit: 5, window: 1m}]",
            "/rules/0",
            "missing property 'permitTtl'"),
        Arguments.of(
            "rules: [{name: jobs, algorithm: concurrency, limit: 5, permitTtl: 30s, window: 1m}]",
            "/rules/0/window",
            "not"),
        Arguments.of(
            "rules: [{name: login, limit: 5, window: 1m, permitTtl: 30s}]",
            "/rules/0/permitTtl",
            "not"),
        Arguments.of(
            "rules: [{name: jobs, limits: [{algorithm: concurrency, limit: 5}]}]",
            "/rules/0/limits/0",
            "missing property 'permitTtl'"),
        // Several limits: a list instead of the flat fields, each limit checked like them.
        Arguments.of(
            "rules: [{name: pay, limit: 5, window: 1s, limits: [{limit: 100, window: 1h}]}]",
            "/rules/0/limit",
            "not"),
        Arguments.of("rules: [{name: pay, limits: []}]", "/rules/0/limits", "minItems"),
        Arguments.of(
            "rules: [{name: pay, limits: [{limit: 5, windw: 1s}]}]",
            "/rules/0/limits/0",
            "missing property 'window'"),
        Arguments.of(
            "rules: [{name: pay, limits: [{limit: 5, window: 1s, burst: 2}]}]",
            "/rules/0/limits/0/burst",
            "not"),
        Arguments.of(
            "metrics: {serviceMonitor: {interval: often}}",
            "/metrics/serviceMonitor/interval",
            "pattern"),
        Arguments.of("envoy: {headers: ietf}", "/envoy/headers", "pattern"),
        Arguments.of("envoy: {rlsPort: 70000}", "/envoy/rlsPort", "maximum"),
        // helm places a property-name error at the root, but names the property.
        Arguments.of(
            "envoy: {configFiles: {edge.json: 'domain: edge'}}",
            "",
            "invalid propertyName 'edge.json'"),
        Arguments.of(
            "envoy: {configFiles: {edge.yaml: {domain: edge}}}",
            "/envoy/configFiles/edge.yaml",
            "string"),
        // A typo is an error too, not a silently ignored key.
        Arguments.of("replicas: 3", "", "additional properties 'replicas'"),
        Arguments.of("cluster: {discovry: tcp-ip}", "/cluster", "additional properties 'discovry'"),
        Arguments.of(
            "region: {home: {members: [home.example]}}",
            "/region/home/members/0",
            "does not match pattern"),
        Arguments.of(
            "region: {home: {timeout: soon}}", "/region/home/timeout", "does not match pattern"),
        Arguments.of("region: {name: eu west}", "/region/name", "does not match pattern"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void template_badValue_isRejectedNamingTheField(String values, String field, String reason) {
    String error = SluiceChart.withDefaults().values(values).renderError();

    assertThat(error).contains("values don't meet the specifications of the schema");
    assertThat(error).contains("at '" + field + "'").contains(reason);
  }

  @Test
  void template_badValueOnTheCommandLine_isRejectedToo() {
    assertThat(SluiceChart.withDefaults().set("replicaCount", -1).renderError())
        .contains("at '/replicaCount'")
        .contains("minimum: got -1, want 1");
    assertThat(SluiceChart.withDefaults().set("cluster.discovery", "nope").renderError())
        .contains("at '/cluster/discovery'")
        .contains("'kubernetes-dns', 'kubernetes-api', 'tcp-ip'");
  }

  @Test
  void template_everyValidDurationForm_isAccepted() {
    for (String window : List.of("250ms", "1s", "1m", "1h", "1d", "PT1M", "PT0.5S", "P1D")) {
      SluiceChart.withDefaults()
          .values("rules: [{name: r, limit: 5, window: \"" + window + "\"}]")
          .render();
    }
  }

  /**
   * Every key of values.yaml is declared in the schema, down to where the schema deliberately stops
   * (free-form objects such as resources). A key missing there would be rejected as an additional
   * property the moment an operator set it.
   */
  @Test
  void schema_declaresEveryKeyOfValuesYaml() throws IOException {
    JsonNode values =
        new YAMLMapper().readTree(SluiceChart.CHART_DIR.resolve("values.yaml").toFile());
    JsonNode schema =
        new ObjectMapper()
            .readTree(Files.readString(SluiceChart.CHART_DIR.resolve("values.schema.json")));
    List<String> undeclared = new ArrayList<>();

    ValuesTree.walk(
        values,
        schema,
        "",
        (path, valueNode, schemaNode) -> {
          if (schemaNode == null) {
            undeclared.add(path);
          }
        });

    assertThat(undeclared).isEmpty();
  }
}
