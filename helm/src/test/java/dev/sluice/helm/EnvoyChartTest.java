package dev.sluice.helm;

import static dev.sluice.helm.ChartRenderTest.containerPorts;
import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.node.envoy.EnvoyFrontEnd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart serves Envoy's rate limit service: its port on the pods and the client Service, its
 * config files in a ConfigMap of their own that edits reach without rolling the pods, and files the
 * node's own loader accepts.
 */
class EnvoyChartTest {
  private static final String FULLNAME = "rl-sluice";
  private static final String EDGE =
      """
      domain: edge
      descriptors:
        - key: remote_address
          rate_limit: {unit: minute, requests_per_unit: 100}
      """;

  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  @Test
  void template_defaultValues_rlsPortOnTheContainerAndTheClientService() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode node = chart.gridNodeContainer();
    Map<String, JsonNode> env = env(node);

    assertThat(containerPorts(node)).containsEntry("grpc-rls", 8081);
    assertThat(env.get("SLUICE_RLS_PORT").path("value").asText()).isEqualTo("8081");
    JsonNode rls = chart.servicePort(FULLNAME, "grpc-rls");
    assertThat(rls.path("port").asInt()).isEqualTo(8081);
    assertThat(rls.path("targetPort").asText()).isEqualTo("grpc-rls");
    assertThat(rls.path("appProtocol").asText()).isEqualTo("grpc");
    assertThat(env.get("SLUICE_ENVOY_SHADOW_MODE").path("value").asText()).isEqualTo("false");
    assertThat(env.get("SLUICE_ENVOY_HEADERS").path("value").asText())
        .isEqualTo("ratelimit,retry-after");
  }

  @Test
  void template_defaultValues_envoyConfigIsAnEmptyConfigMapMountedAsTheConfigDirectory() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode node = chart.gridNodeContainer();
    JsonNode podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");

    JsonNode configMap = chart.named("ConfigMap", FULLNAME + "-envoy");
    assertThat(configMap.path("data").size()).isZero();
    String mountPath = mountPath(node, "envoy-config");
    assertThat(env(node).get("SLUICE_ENVOY_CONFIG").path("value").asText()).isEqualTo(mountPath);
    assertThat(mountPath).doesNotStartWith("/etc/sluice/");
    JsonNode volume = volume(podSpec, "envoy-config");
    assertThat(volume.path("configMap").path("name").asText()).isEqualTo(FULLNAME + "-envoy");
    assertThat(volume.path("configMap").has("items")).as("the whole directory").isFalse();
  }

  @Test
  void template_envoyConfigEdit_changesTheConfigMapButNotThePodsSoTheyReloadInPlace() {
    RenderedChart before = withEdge(EDGE).render();
    RenderedChart after = withEdge(EDGE.replace("100", "200")).render();

    assertThat(configFile(after, "edge.yaml")).contains("requests_per_unit: 200");
    assertThat(configFile(before, "edge.yaml")).contains("requests_per_unit: 100");
    assertThat(podTemplate(after))
        .as("no checksum or other change of the pod template: no rolling restart")
        .isEqualTo(podTemplate(before));
  }

  @Test
  void template_rlsPortZero_noPortOnThePodTheServiceOrTheNetworkPolicy() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("envoy.rlsPort", 0)
            .set("networkPolicy.restFromAnywhere", false)
            .render();

    FrontEndPorts.assertOff(chart, FULLNAME, "grpc-rls", "SLUICE_RLS_PORT");
  }

  @Test
  void template_networkPolicy_admitsTheRlsPortWhereItAdmitsRest() {
    for (boolean fromAnywhere : List.of(true, false)) {
      List<List<String>> rulePorts =
          SluiceChart.withDefaults()
              .set("networkPolicy.restFromAnywhere", fromAnywhere)
              .render()
              .ingressRulePorts();
      assertThat(rulePorts)
          .as("restFromAnywhere %s", fromAnywhere)
          .anySatisfy(ports -> assertThat(ports).contains("http", "grpc-rls"));
    }
  }

  @Test
  void configFiles_asThePodsSeeThem_loadWithTheNodesLoader(@TempDir Path dir) throws Exception {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .values(
                "envoy:\n  configFiles:\n    edge.yaml: |\n"
                    + EDGE.indent(6)
                    + "    internal.yml: |\n      domain: internal\n")
            .render();

    writeConfigMap(chart, dir);

    EnvoyFrontEnd loaded = EnvoyFrontEnd.load(dir, Duration.ofSeconds(1));
    loaded.close();
    Files.writeString(dir.resolve("edge.yaml"), EDGE.replace("minute", "minutes"));
    assertThatThrownBy(() -> EnvoyFrontEnd.load(dir, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigFileException.class)
        .hasMessageContaining(dir.resolve("edge.yaml") + ":4:")
        .hasMessageContaining("invalid rate limit unit 'minutes'");
  }

  private static SluiceChart withEdge(String text) {
    return SluiceChart.withDefaults()
        .values("envoy:\n  configFiles:\n    edge.yaml: |\n" + text.indent(6));
  }

  private static String configFile(RenderedChart chart, String name) {
    return chart.named("ConfigMap", FULLNAME + "-envoy").path("data").path(name).asText();
  }

  private static JsonNode podTemplate(RenderedChart chart) {
    return chart.one("StatefulSet").path("spec").path("template");
  }

  private static void writeConfigMap(RenderedChart chart, Path dir) throws Exception {
    for (Map.Entry<String, JsonNode> file :
        chart.named("ConfigMap", FULLNAME + "-envoy").path("data").properties()) {
      Files.writeString(dir.resolve(file.getKey()), file.getValue().asText());
    }
  }

  private static String mountPath(JsonNode container, String volume) {
    for (JsonNode mount : container.path("volumeMounts")) {
      if (volume.equals(mount.path("name").asText())) {
        return mount.path("mountPath").asText();
      }
    }
    throw new AssertionError("no mount of " + volume);
  }

  private static JsonNode volume(JsonNode podSpec, String name) {
    for (JsonNode volume : podSpec.path("volumes")) {
      if (name.equals(volume.path("name").asText())) {
        return volume;
      }
    }
    throw new AssertionError("no volume " + name);
  }
}
