package dev.sluice.helm;

import static dev.sluice.helm.ChartRenderTest.containerPorts;
import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.node.NodeSettings;
import dev.sluice.node.Setting;
import dev.sluice.rest.ApiSettings;
import dev.sluice.rest.ReadinessProbe;
import dev.sluice.rest.SluiceApi;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart configures the node only through what grid-node actually reads (docs/configuration.md):
 * every {@code SLUICE_*} variable it sets is in {@link Setting#ENVIRONMENT_VARIABLES}, and the
 * environment and config file a pod would see, fed to the node's own {@link NodeSettings#load},
 * give a node that listens on the ports the probes and Services use, finds its peers the way the
 * values say, and would not refuse to start.
 */
class NodeContractTest {

  /** Variables the chart may set that are not the node's own settings. */
  private static final List<String> JVM_VARIABLES = List.of("JAVA_TOOL_OPTIONS");

  private static final String POD_IP = "10.1.2.3";
  private static final String SECRET_TOKEN = "token-from-the-secret";

  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  static Stream<Arguments> scenarios() {
    Map<String, Supplier<SluiceChart>> scenarios = new LinkedHashMap<>();
    scenarios.put("defaults", SluiceChart::withDefaults);
    scenarios.put(
        "kubernetes-api discovery",
        () -> SluiceChart.withDefaults().set("cluster.discovery", "kubernetes-api"));
    scenarios.put(
        "tcp-ip discovery, 5 replicas",
        () -> SluiceChart.withDefaults().set("cluster.discovery", "tcp-ip").set("replicaCount", 5));
    scenarios.put(
        "tcp-ip discovery, explicit members",
        () ->
            SluiceChart.withDefaults()
                .set("replicaCount", 2)
                .values("cluster: {discovery: tcp-ip, members: [a.example:5701, b.example:5701]}"));
    scenarios.put(
        "existing secret",
        () -> SluiceChart.withDefaults().set("auth.existingSecret", "ops-token"));
    scenarios.put("insecure", () -> SluiceChart.withDefaults().set("auth.insecure", true));
    scenarios.put(
        "custom ports, cluster name and backups",
        () ->
            SluiceChart.withDefaults()
                .set("rest.port", 9090)
                .set("member.port", 5801)
                .set("cluster.name", "limits-eu")
                .set("cluster.backupCount", 2));
    scenarios.put(
        "node config file",
        () -> SluiceChart.withDefaults().values("nodeConfig: {rulesReloadInterval: 5s}"));
    scenarios.put(
        "a region of a home grid",
        () ->
            SluiceChart.withDefaults()
                .values(
                    "region: {name: eu-west, home: {members: [home-0.example:5701,"
                        + " home-1.example:5701], clusterName: limits-home, timeout: 300ms}}"));
    scenarios.put(
        "ServiceMonitor and NetworkPolicy",
        () ->
            SluiceChart.withDefaults()
                .set("metrics.serviceMonitor.enabled", true)
                .set("networkPolicy.enabled", true));
    return scenarios.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void env_everySluiceVariableTheChartSets_isOneTheNodeReads(
      String scenario, Supplier<SluiceChart> chart) {
    List<String> names = new ArrayList<>(env(chart.get().render().gridNodeContainer()).keySet());

    assertThat(names.stream().filter(n -> n.startsWith("SLUICE_")))
        .isSubsetOf(Setting.ENVIRONMENT_VARIABLES);
    assertThat(names.stream().filter(n -> !n.startsWith("SLUICE_"))).isSubsetOf(JVM_VARIABLES);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void env_asAPodSeesIt_loadsIntoANodeThatMatchesTheManifests(
      String scenario, Supplier<SluiceChart> chart, @TempDir Path dir) throws IOException {
    RenderedChart rendered = chart.get().render();
    JsonNode node = rendered.gridNodeContainer();
    Map<String, String> environment = resolve(env(node));
    Path configFile = configFile(rendered, node, dir);

    NodeSettings settings = NodeSettings.load(configFile, environment);

    Map<String, Integer> ports = containerPorts(node);
    assertThat(settings.restPort()).isEqualTo(ports.get("http"));
    assertThat(settings.rlsPort()).isEqualTo(ports.get("grpc-rls"));
    assertThat(settings.envoyConfig()).isEqualTo(Path.of("/etc/sluice-envoy"));
    assertThat(settings.memberPort()).isEqualTo(ports.get("hazelcast"));
    assertThat(settings.bindsLoopbackOnly()).isFalse();
    assertThat(settings.hasAdminToken() || settings.insecure())
        .as("a node on a pod address without a token refuses to start")
        .isTrue();
    assertThat(settings.publicAddress()).isEqualTo(POD_IP);
    assertThat(settings.rulesFile()).isEqualTo(Path.of("/etc/sluice/rules.yaml"));
    assertThat(settings.discovery().wireName()).isEqualTo(environment.get("SLUICE_DISCOVERY"));
    assertThat(settings.clusterName()).isEqualTo(environment.get("SLUICE_CLUSTER_NAME"));
    assertThat(settings.backupCount())
        .isEqualTo(Integer.parseInt(environment.get("SLUICE_BACKUP_COUNT")));
    switch (settings.discovery()) {
      case KUBERNETES_DNS ->
          assertThat(settings.kubernetesServiceDns())
              .startsWith(
                  rendered
                          .named("Service", "rl-sluice-members")
                          .path("metadata")
                          .path("name")
                          .asText()
                      + ".");
      case KUBERNETES_API -> {
        assertThat(settings.kubernetesServiceName()).isEqualTo("rl-sluice-members");
        assertThat(settings.kubernetesNamespace()).isEqualTo(SluiceChart.NAMESPACE);
      }
      case TCP_IP -> assertThat(settings.members()).isNotEmpty();
    }
    if (environment.containsKey("SLUICE_HOME_MEMBERS")) {
      assertThat(settings.home()).isNotNull();
      assertThat(settings.home().homeMembers())
          .containsExactly("home-0.example:5701", "home-1.example:5701");
      assertThat(settings.home().homeClusterName()).isEqualTo("limits-home");
      assertThat(settings.home().homeTimeout()).isEqualTo(Duration.ofMillis(300));
      assertThat(settings.region()).isEqualTo("eu-west");
    } else {
      assertThat(settings.home()).isNull();
    }
  }

  @Test
  void probesAndScrapePath_areServedByTheRealRestApi() throws Exception {
    RenderedChart chart =
        SluiceChart.withDefaults().set("metrics.serviceMonitor.enabled", true).render();
    JsonNode node = chart.gridNodeContainer();
    List<String> paths = new ArrayList<>();
    for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
      assertThat(node.path(probe).path("httpGet").path("port").asText()).isEqualTo("http");
      paths.add(node.path(probe).path("httpGet").path("path").asText());
    }
    paths.add(
        chart.one("ServiceMonitor").path("spec").path("endpoints").path(0).path("path").asText());
    SluiceApi api =
        new SluiceApi(
                LocalRateLimiter.builder().build(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                ApiSettings.withAdminToken("test-token"),
                ReadinessProbe.alwaysReady(),
                () -> 0)
            .start("127.0.0.1", 0);
    HttpClient http = HttpClient.newHttpClient();
    try {
      for (String path : paths) {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
      }
    } finally {
      api.stop();
    }
  }

  /**
   * On SIGTERM the node waits up to {@code MemberConfig.GRACEFUL_SHUTDOWN_SECONDS} for its
   * partitions to migrate; the pod's grace period, counted from the preStop hook, must cover the
   * hook and that wait, or Kubernetes kills the node mid-handover. The constant is package-private
   * in grid-node, so it is read reflectively: a change there fails here.
   */
  @Test
  void terminationGracePeriod_coversPreStopPlusTheNodesMigrationWait() throws Exception {
    Field wait =
        Class.forName("dev.sluice.node.MemberConfig").getDeclaredField("GRACEFUL_SHUTDOWN_SECONDS");
    wait.setAccessible(true);
    int nodeWaitSeconds = wait.getInt(null);
    JsonNode podSpec =
        SluiceChart.withDefaults()
            .render()
            .one("StatefulSet")
            .path("spec")
            .path("template")
            .path("spec");
    JsonNode values =
        new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
            .readTree(SluiceChart.CHART_DIR.resolve("values.yaml").toFile());

    assertThat(podSpec.path("terminationGracePeriodSeconds").asInt())
        .isGreaterThan(values.path("preStopSleepSeconds").asInt() + nodeWaitSeconds);
  }

  @Test
  void values_defaultPorts_areTheNodesDefaults() throws IOException {
    NodeSettings defaults = NodeSettings.defaults();
    JsonNode values =
        new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
            .readTree(SluiceChart.CHART_DIR.resolve("values.yaml").toFile());

    assertThat(values.path("rest").path("port").asInt()).isEqualTo(defaults.restPort());
    assertThat(values.path("member").path("port").asInt()).isEqualTo(defaults.memberPort());
    assertThat(values.path("cluster").path("backupCount").asInt())
        .isEqualTo(defaults.backupCount());
  }

  @Test
  void schema_discoveryModes_areTheNodes() throws IOException {
    JsonNode schema =
        new ObjectMapper()
            .readTree(Files.readString(SluiceChart.CHART_DIR.resolve("values.schema.json")));
    List<String> modes = new ArrayList<>();
    schema
        .path("properties")
        .path("cluster")
        .path("properties")
        .path("discovery")
        .path("enum")
        .forEach(m -> modes.add(m.asText()));

    assertThat(modes)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(NodeSettings.Discovery.values())
                .map(NodeSettings.Discovery::wireName)
                .toList());
  }

  /** What the kubelet would put in the environment: values as given, references resolved. */
  private static Map<String, String> resolve(Map<String, JsonNode> env) {
    Map<String, String> resolved = new LinkedHashMap<>();
    env.forEach(
        (name, entry) -> {
          JsonNode from = entry.path("valueFrom");
          String value;
          if (entry.has("value")) {
            value = entry.path("value").asText();
          } else if (from.has("secretKeyRef")) {
            value = SECRET_TOKEN;
          } else {
            String field = from.path("fieldRef").path("fieldPath").asText();
            value =
                switch (field) {
                  case "status.podIP" -> POD_IP;
                  case "metadata.namespace" -> SluiceChart.NAMESPACE;
                  default -> throw new AssertionError(name + ": unexpected reference " + entry);
                };
          }
          resolved.put(name, value);
        });
    return resolved;
  }

  /** The --config file the pod would read, written out from the ConfigMap; null without one. */
  private static Path configFile(RenderedChart rendered, JsonNode node, Path dir)
      throws IOException {
    List<String> args = new ArrayList<>();
    node.path("args").forEach(a -> args.add(a.asText()));
    int flag = args.indexOf("--config");
    if (flag < 0) {
      return null;
    }
    Path inPod = Path.of(args.get(flag + 1));
    assertThat(inPod.getParent()).isEqualTo(Path.of("/etc/sluice"));
    String content =
        rendered
            .named("ConfigMap", "rl-sluice")
            .path("data")
            .path(inPod.getFileName().toString())
            .asText();
    return Files.writeString(dir.resolve(inPod.getFileName().toString()), content);
  }
}
