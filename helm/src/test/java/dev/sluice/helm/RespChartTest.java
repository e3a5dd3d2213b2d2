package dev.sluice.helm;

import static dev.sluice.helm.ChartRenderTest.containerPorts;
import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chart serves the Redis protocol: its port on the pods, the client Service and the
 * NetworkPolicy (where the REST port is admitted), and a switch that turns all of it off.
 */
class RespChartTest {
  private static final String FULLNAME = "rl-sluice";

  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  @Test
  void template_defaultValues_redisPortOnThePodAndTheClientService() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode node = chart.gridNodeContainer();

    assertThat(containerPorts(node)).containsEntry("redis", 6380);
    assertThat(env(node).get("SLUICE_RESP_PORT").path("value").asText()).isEqualTo("6380");
    JsonNode redis = chart.servicePort(FULLNAME, "redis");
    assertThat(redis.path("port").asInt()).isEqualTo(6380);
    assertThat(redis.path("targetPort").asText()).isEqualTo("redis");
  }

  @Test
  void template_otherPorts_podAndServiceFollowTheValues() {
    RenderedChart chart =
        SluiceChart.withDefaults().set("resp.port", 7000).set("resp.servicePort", 6379).render();

    assertThat(containerPorts(chart.gridNodeContainer())).containsEntry("redis", 7000);
    assertThat(env(chart.gridNodeContainer()).get("SLUICE_RESP_PORT").path("value").asText())
        .isEqualTo("7000");
    assertThat(chart.servicePort(FULLNAME, "redis").path("port").asInt()).isEqualTo(6379);
  }

  @Test
  void template_disabled_portZero_noPortOnThePodTheServiceOrTheNetworkPolicy() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("resp.enabled", false)
            .set("networkPolicy.restFromAnywhere", false)
            .render();

    FrontEndPorts.assertOff(chart, FULLNAME, "redis", "SLUICE_RESP_PORT");
  }

  @Test
  void template_networkPolicy_admitsTheRedisPortWhereItAdmitsRest() {
    for (boolean fromAnywhere : List.of(true, false)) {
      List<List<String>> rulePorts =
          SluiceChart.withDefaults()
              .set("networkPolicy.restFromAnywhere", fromAnywhere)
              .render()
              .ingressRulePorts();
      assertThat(rulePorts)
          .as("restFromAnywhere %s", fromAnywhere)
          .anySatisfy(ports -> assertThat(ports).contains("http", "redis"))
          .noneSatisfy(ports -> assertThat(ports).contains("hazelcast", "redis"));
    }
  }
}
