package dev.sluice.helm;

import static dev.sluice.helm.ChartRenderTest.containerPorts;
import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the chart must do for a front end's port that is switched off (the Envoy rate limit service,
 * the Redis protocol): the node gets 0 for its setting, and neither the pod, nor the client
 * Service, nor the NetworkPolicy names the port.
 */
final class FrontEndPorts {
  private FrontEndPorts() {}

  static void assertOff(RenderedChart chart, String service, String port, String setting) {
    assertThat(containerPorts(chart.gridNodeContainer())).doesNotContainKey(port);
    assertThat(env(chart.gridNodeContainer()).get(setting).path("value").asText()).isEqualTo("0");
    assertThat(chart.named("Service", service).path("spec").path("ports").findValuesAsText("name"))
        .doesNotContain(port);
    assertThat(chart.one("NetworkPolicy").toString()).doesNotContain(port);
  }
}
