package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.rules.RulesFile;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.PolicySpec;
import dev.sluice.core.spec.RuleSpec;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules the chart ships are rules the node loads: the rendered rules.yaml goes through the
 * node's own parser, and the schema's idea of a rule (fields, a list of limits, algorithms, bounds)
 * is the parser's.
 */
class RulesContractTest {

  @Test
  void rulesYaml_defaultValues_loadWithTheNodesParser() {
    String rendered =
        SluiceChart.withDefaults()
            .render()
            .named("ConfigMap", "rl-sluice")
            .path("data")
            .path("rules.yaml")
            .asText();

    List<Rule> rules = RulesFile.parse("rules.yaml from the chart", rendered);

    assertThat(rules).extracting(Rule::name).containsExactly("login", "api");
  }

  @Test
  void rulesYaml_everyAlgorithmWithEveryFieldItHas_loadsWithTheNodesParser() {
    StringBuilder values = new StringBuilder("rules:\n");
    for (Algorithm algorithm : Algorithm.values()) {
      values
          .append("  - {name: r-")
          .append(algorithm.wireName())
          .append(", algorithm: ")
          .append(algorithm.wireName())
          .append(
              algorithm.inFlight() ? ", limit: 100, permitTtl: 30s" : ", limit: 100, window: 1m")
          .append(", shadow: true, countDenied: false")
          .append(algorithm.hasBurst() ? ", burst: 10" : "")
          .append(algorithm.hasBuckets() ? ", buckets: 6" : "")
          .append("}\n");
    }
    String rendered =
        SluiceChart.withDefaults()
            .values(values.toString())
            .render()
            .named("ConfigMap", "rl-sluice")
            .path("data")
            .path("rules.yaml")
            .asText();

    assertThat(RulesFile.parse("rules.yaml from the chart", rendered))
        .hasSize(Algorithm.values().length);
  }

  @Test
  void rulesYaml_ruleWithSeveralLimits_loadsAsOnePolicyOfThemAll() {
    String rendered =
        SluiceChart.withDefaults()
            .values(
                """
                rules:
                  - name: payments
                    limits:
                      - limit: 5
                        window: 1s
                      - limit: 100
                        window: 1h
                        algorithm: gcra
                        burst: 10
                    countDenied: true
                    onDenied: shadow_ban
                """)
            .render()
            .named("ConfigMap", "rl-sluice")
            .path("data")
            .path("rules.yaml")
            .asText();

    assertThat(RulesFile.parse("rules.yaml from the chart", rendered))
        .containsExactly(
            new Rule(
                "payments",
                Policy.builder()
                    .limit(5)
                    .window(Duration.ofSeconds(1))
                    .and(
                        Limit.builder()
                            .algorithm(Algorithm.GCRA)
                            .limit(100)
                            .window(Duration.ofHours(1))
                            .burst(10)
                            .build())
                    .countDenied(true)
                    .onDenied(Policy.OnDenied.SHADOW_BAN)
                    .build()));
  }

  /**
   * The schema's rule is {@link RuleSpec} (a name and {@link PolicySpec}'s fields) and the items of
   * its {@code limits} are {@link LimitSpec}s; a field added to either fails here until the schema
   * has it. Both use the schema's one definition of each limit field, whose algorithms and bounds
   * are {@link Algorithm}'s, {@link Limit}'s and {@link Policy}'s.
   */
  @Test
  void schema_ruleFieldsAlgorithmsAndBounds_matchTheNodesParser() throws IOException {
    JsonNode schema =
        new ObjectMapper()
            .readTree(Files.readString(SluiceChart.CHART_DIR.resolve("values.schema.json")));
    JsonNode rule = schema.path("properties").path("rules").path("items");
    JsonNode limits = rule.path("properties").path("limits");
    JsonNode definitions = schema.path("definitions");

    assertThat(fieldNames(rule.path("properties")))
        .containsExactlyElementsOf(components(RuleSpec.class));
    assertThat(fieldNames(limits.path("items").path("properties")))
        .containsExactlyInAnyOrderElementsOf(components(LimitSpec.class));
    for (String field : components(LimitSpec.class)) {
      String definition = "#/definitions/" + field;
      assertThat(rule.path("properties").path(field).path("$ref").asText())
          .as("the rule's %s", field)
          .isEqualTo(definition);
      assertThat(limits.path("items").path("properties").path(field).path("$ref").asText())
          .as("a limit's %s", field)
          .isEqualTo(definition);
      assertThat(definitions.has(field)).as(definition).isTrue();
    }

    List<String> algorithms = new ArrayList<>();
    definitions.path("algorithm").path("enum").forEach(a -> algorithms.add(a.asText()));
    assertThat(algorithms)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(Algorithm.values()).map(Algorithm::wireName).toList());
    assertThat(definitions.path("limit").path("maximum").asLong()).isEqualTo(Limit.MAX_LIMIT);
    assertThat(definitions.path("burst").path("maximum").asLong()).isEqualTo(Limit.MAX_LIMIT);
    assertThat(definitions.path("buckets").path("maximum").asInt()).isEqualTo(Limit.MAX_BUCKETS);
    assertThat(limits.path("maxItems").asInt()).isEqualTo(Policy.MAX_LIMITS);
  }

  private static List<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
