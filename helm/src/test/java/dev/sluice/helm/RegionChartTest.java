package dev.sluice.helm;

import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release can be a region of a home grid that counts the global rules: {@code region.*} becomes
 * the node's {@code SLUICE_REGION} and {@code SLUICE_HOME_*} settings, and a release without a home
 * sets none of them (a standalone grid, or home itself). {@link NodeContractTest} loads the same
 * manifests into a real node's settings.
 */
class RegionChartTest {
  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  @Test
  void template_defaultValues_noHome() {
    JsonNode node = SluiceChart.withDefaults().render().gridNodeContainer();

    assertThat(env(node).keySet())
        .noneMatch(name -> name.startsWith("SLUICE_HOME_") || name.equals("SLUICE_REGION"));
  }

  @Test
  void template_homeMembers_becomeTheRegionsSettings() {
    JsonNode node =
        SluiceChart.withDefaults()
            .values("region: {name: us-east, home: {members: [h0.example:5701, h1.example:5701]}}")
            .render()
            .gridNodeContainer();

    assertThat(env(node).get("SLUICE_REGION").path("value").asText()).isEqualTo("us-east");
    assertThat(env(node).get("SLUICE_HOME_MEMBERS").path("value").asText())
        .isEqualTo("h0.example:5701,h1.example:5701");
    assertThat(env(node).get("SLUICE_HOME_CLUSTER_NAME").path("value").asText())
        .isEqualTo("sluice-home");
    assertThat(env(node).get("SLUICE_HOME_TIMEOUT").path("value").asText()).isEqualTo("250ms");
  }

  @Test
  void template_homeWithoutARegionName_leavesTheNameToTheNode() {
    JsonNode node =
        SluiceChart.withDefaults()
            .values("region: {home: {members: [h0.example:5701]}}")
            .render()
            .gridNodeContainer();

    assertThat(env(node)).containsKey("SLUICE_HOME_MEMBERS").doesNotContainKey("SLUICE_REGION");
  }

  /** docs/multi-region.md's values files render, and each region's names its home. */
  @Test
  void docs_valuesFilesOfHomeAndTwoRegions_render() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "multi-region.md"));
    int from = page.indexOf("```yaml", page.indexOf("With the Helm chart"));
    String block = page.substring(page.indexOf('\n', from) + 1, page.indexOf("```", from + 7));
    List<String> files = Arrays.stream(block.split("(?m)^---$")).toList();
    assertThat(files).hasSize(3);

    for (String values : files) {
      SluiceChart.CLUSTER.clear();
      JsonNode node = SluiceChart.withDefaults().values(values).render().gridNodeContainer();
      boolean region = values.contains("region:");
      assertThat(env(node).containsKey("SLUICE_HOME_MEMBERS")).as(values).isEqualTo(region);
    }
  }
}
