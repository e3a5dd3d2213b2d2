package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
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
}
