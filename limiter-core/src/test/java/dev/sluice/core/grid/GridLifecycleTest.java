package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.metrics.DecisionMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** TTL cleanup, rules on late joiners, and the same limiter class over a Hazelcast client. */
class GridLifecycleTest {

  /**
   * The embedded-mode tests' rule, decided on the system clock: one an hour, so that their two
   * checks, milliseconds apart, straddle a wall-clock window boundary about once in a million runs
   * (a sliding window counts the previous window as an estimate, so one count made just before a
   * boundary reads as 0 just after it, and the second check would be admitted too).
   */
  private static final Rule EMBEDDED_LOGIN = new Rule("login", Policy.of(1, Duration.ofHours(1)));

  private static long ownedEntries(GridTestCluster cluster) {
    return cluster.members.stream()
        .mapToLong(m -> m.getMap(GridNames.STATE_MAP).getLocalMapStats().getOwnedEntryCount())
        .sum();
  }

  /**
   * The one test that waits on wall time: entry TTL has one-second resolution. Bounded at 15 s.
   * Inline policies' states keep a TTL (rule states are swept: {@link
   * dev.sluice.core.grid.member.StateSweeperTest}).
   */
  @Test
  void idleInlineKeys_expireByTtl_entryCountReturnsToZero() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startWithWallClockTtl(2)) {
      GridRateLimiter limiter = cluster.limiter(0);
      Policy shortWindow = Policy.of(5, Duration.ofMillis(100));
      for (int i = 0; i < 50; i++) {
        limiter.tryAcquire(Check.inline(shortWindow, "key-" + i, 1));
      }
      // Owned-entry statistics can count a partition twice while it migrates: count the map.
      assertThat(limiter.stateCount()).isEqualTo(50);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while ((limiter.stateCount() > 0 || ownedEntries(cluster) > 0)
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(ownedEntries(cluster)).isZero();
      assertThat(limiter.stateCount()).isZero();
    }
  }

  @Test
  void lateJoiner_loadsExistingRules_andDecidesWithThem() {
    try (GridTestCluster cluster = GridTestCluster.start(1)) {
      cluster.limiter(0).rules().put(new Rule("early", Policy.of(1, Duration.ofMinutes(1))));
      HazelcastInstance late = cluster.addMember();
      GridRateLimiter lateLimiter = cluster.limiter(late, GridRateLimiter.Options.defaults());
      assertThat(MemberContext.of(late).record("early")).isNotNull();
      assertThat(lateLimiter.tryAcquire("early", "k").allowed()).isTrue();
      assertThat(lateLimiter.tryAcquire("early", "k").allowed()).isFalse();
    }
  }

  @Test
  void client_sameLimiterClass_decidesOnTheOwners() {
    try (GridTestCluster cluster = GridTestCluster.start(2)) {
      HazelcastInstance client = cluster.newClient();
      GridRateLimiter limiter = cluster.limiter(client, GridRateLimiter.Options.defaults());
      limiter.rules().put(new Rule("from-client", Policy.of(2, Duration.ofMinutes(1))));
      List<Decision> decisions =
          limiter.tryAcquireAll(
              List.of(
                  Check.of("from-client", "a"),
                  Check.of("from-client", "a"),
                  Check.of("from-client", "a"),
                  Check.of("from-client", "b")));
      assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, false, true);
      // Time is the members' clock: moving it a window ahead refills, whatever the client's is.
      cluster.clock.advance(Duration.ofMinutes(2));
      assertThat(limiter.tryAcquire("from-client", "a").allowed()).isTrue();
      assertThatThrownBy(() -> limiter.tryAcquire("nope", "a"))
          .isInstanceOf(UnknownRuleException.class);
      // The client cannot know the capacity of a named rule; the owner refuses and counts nothing.
      assertThatThrownBy(() -> limiter.tryAcquire("from-client", "c", 3))
          .isInstanceOf(InvalidPolicyException.class)
          .extracting(e -> ((InvalidPolicyException) e).field())
          .isEqualTo("cost");
      assertThat(limiter.peek("from-client", "c").remaining()).isEqualTo(2);
      IMap<String, StateValue> states = client.getMap(GridNames.STATE_MAP);
      assertThat(states.containsKey("from-client|c")).isFalse();
    }
  }

  @Test
  void embedded_startsAMemberWithTheLimiterInstalled() {
    com.hazelcast.config.Config config =
        new com.hazelcast.config.Config().setClusterName("test-" + java.util.UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    try (Sluice sluice = Sluice.embedded(config)) {
      sluice.limiter().rules().put(EMBEDDED_LOGIN);
      assertThat(sluice.limiter().tryAcquire("login", "203.0.113.7").allowed()).isTrue();
      assertThat(sluice.limiter().tryAcquire("login", "203.0.113.7").allowed()).isFalse();
      assertThat(sluice.hazelcast().getCluster().getMembers()).hasSize(1);
    }
  }

  @Test
  void embedded_withARegistry_recordsEveryDecisionAsTheRestNodeDoes() {
    com.hazelcast.config.Config config =
        new com.hazelcast.config.Config().setClusterName("test-" + java.util.UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Sluice sluice = Sluice.embedded(config, registry)) {
      sluice.limiter().rules().put(EMBEDDED_LOGIN);
      sluice.limiter().tryAcquire("login", "203.0.113.7");
      sluice.limiter().tryAcquire("login", "203.0.113.7");

      assertThat(decisions(registry, "allowed")).isEqualTo(1);
      assertThat(decisions(registry, "denied")).isEqualTo(1);
      assertThat(registry.get(DecisionMetrics.DECISION_TIMER).timer().count()).isEqualTo(2);
    }
  }

  private static double decisions(SimpleMeterRegistry registry, String outcome) {
    return registry
        .get(DecisionMetrics.DECISIONS)
        .tag("rule", "login")
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  @Test
  void configure_minStateTtlBelowOneSecondOrNotANumber_isRefusedNamingTheProperty() {
    for (String bad : List.of("999", "-1", "1h", "")) {
      Config config = new Config();
      config.setProperty(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY, bad);
      assertThatThrownBy(() -> SluiceHazelcast.configure(config, TimeSource.system()))
          .as("min TTL '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY)
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
