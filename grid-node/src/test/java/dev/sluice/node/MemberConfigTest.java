package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.config.ClientConfig;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The member's Hazelcast config as the node builds it from its settings. */
class MemberConfigTest {

  /**
   * The sweep period is a JVM system property (docs/configuration.md, "Idle-key cleanup"): a value
   * the member cannot run with stops the start with the node's one-line configuration error, not a
   * stack trace.
   */
  @Test
  void build_badSweepPeriodProperty_isAConfigurationErrorNamingTheProperty() {
    String property = SluiceHazelcast.SWEEP_PERIOD_MILLIS_PROPERTY;
    String before = System.getProperty(property);
    System.setProperty(property, "5");
    try {
      assertThatThrownBy(() -> MemberConfig.build(NodeSettings.defaults(), TimeSource.system()))
          .isInstanceOf(NodeConfigException.class)
          .hasMessage(
              property
                  + ": must be a whole number of milliseconds, at least 10, was '5' (a JVM"
                  + " system property)");
    } finally {
      if (before == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, before);
      }
    }
  }

  /**
   * Client mode's Hazelcast client is the Java SDK's, with the node's discovery: the listed
   * members, or Kubernetes in their place (Hazelcast takes one way to find members).
   */
  @Test
  void buildClient_isTheSdksConfigWithTheNodesDiscovery() {
    ClientConfig tcp =
        MemberConfig.buildClient(
            NodeSettings.load(
                null,
                Map.of(
                    "SLUICE_MODE", "client",
                    "SLUICE_MEMBERS", "g1:5701,g2:5701",
                    "SLUICE_CALL_TIMEOUT", "3s")));
    assertThat(tcp.getNetworkConfig().getAddresses()).containsExactly("g1:5701", "g2:5701");
    assertThat(tcp.getProperty("hazelcast.client.invocation.timeout.seconds")).isEqualTo("7");
    assertThat(tcp.getConnectionStrategyConfig().isAsyncStart()).isTrue();
    assertThat(tcp.getProperty("hazelcast.shutdownhook.enabled")).isEqualTo("false");

    ClientConfig kubernetes =
        MemberConfig.buildClient(
            NodeSettings.load(
                null,
                Map.of(
                    "SLUICE_MODE", "client",
                    "SLUICE_DISCOVERY", "kubernetes-dns",
                    "SLUICE_KUBERNETES_SERVICE_DNS", "sluice-hs.default.svc")));
    assertThat(kubernetes.getNetworkConfig().getAddresses()).isEmpty();
    assertThat(kubernetes.getNetworkConfig().getKubernetesConfig().isEnabled()).isTrue();
    assertThat(kubernetes.getNetworkConfig().getKubernetesConfig().getProperty("service-dns"))
        .isEqualTo("sluice-hs.default.svc");
  }
}
