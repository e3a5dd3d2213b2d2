package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Limit;
import dev.sluice.core.Rule;
import dev.sluice.core.rules.RulesFile;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules the chart ships are rules the node loads: the rendered rules.yaml goes through the
 * node's own parser, and the schema's idea of a rule (fields, algorithms, bounds) is the parser's.
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
          .append(", limit: 100, window: 1m, shadow: true, countDenied: false")
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
  void schema_ruleFieldsAlgorithmsAndBounds_matchTheNodesParser() throws IOException {
    JsonNode rule =
        new ObjectMapper()
            .readTree(Files.readString(SluiceChart.CHART_DIR.resolve("values.schema.json")))
            .path("properties")
            .path("rules")
            .path("items");

    List<String> fields = new ArrayList<>();
    rule.path("properties").fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactlyInAnyOrderElementsOf(RulesFile.FIELDS);
    List<String> algorithms = new ArrayList<>();
    rule.path("properties").path("algorithm").path("enum").forEach(a -> algorithms.add(a.asText()));
    assertThat(algorithms)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(Algorithm.values()).map(Algorithm::wireName).toList());
    assertThat(rule.path("properties").path("limit").path("maximum").asLong())
        .isEqualTo(Limit.MAX_LIMIT);
    assertThat(rule.path("properties").path("buckets").path("maximum").asInt())
        .isEqualTo(Limit.MAX_BUCKETS);
  }
}
