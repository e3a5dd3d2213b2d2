package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Timelines of one node's stats, ticked by hand at epoch seconds. */
class NodeStatsTest {
  private static final long T = 1_800_000_000L; // an epoch second

  private final NodeStats stats = NodeStats.manual("node-a");

  private static Decision allowed() {
    return Decision.allow(10, 5, 1_000_000_000L);
  }

  private static Decision denied() {
    return Decision.deny(10, 0, 500_000_000L, 1_000_000_000L);
  }

  @Test
  void snapshot_decisionsInTwoSeconds_countInTheSecondTheyWereTickedIn() {
    RuleTally login = stats.tally("login");
    login.record(Check.of("login", "alice"), allowed());
    login.record(Check.of("login", "alice"), allowed());
    stats.tick(T); // t=T: 2 allowed
    login.record(Check.of("login", "bob"), denied());
    stats.tick(T + 2); // t=T+1 no tick; t=T+2: 1 denied

    NodeSnapshot snapshot = stats.snapshot(T + 2, 4, null);

    assertThat(snapshot.rates()).hasSize(1);
    RuleRates rates = snapshot.rates().get(0);
    assertThat(rates.rule()).isEqualTo("login");
    assertThat(rates.allowed()).containsExactly(0, 2, 0, 0);
    assertThat(rates.denied()).containsExactly(0, 0, 0, 1);
    assertThat(snapshot.limitedKeys()).isEmpty();
  }

  @Test
  void snapshot_withKeys_listsTheDeniedKeysOfTheLastTwoMinutes() {
    RuleTally login = stats.tally("login");
    for (int i = 0; i < 5; i++) {
      login.record(Check.of("login", "mallory"), denied());
    }
    login.record(Check.of("login", "bob"), denied());
    stats.tick(T);
    stats.tick(T + 60); // the next minute: the previous one still counts
    NodeSnapshot nextMinute = stats.snapshot(T + 60, 0, "");
    stats.tick(T + 120); // two minutes on: forgotten

    assertThat(nextMinute.limitedKeys().get("login").keys())
        .containsExactly(new KeyCount("mallory", 5, 0), new KeyCount("bob", 1, 0));
    assertThat(stats.snapshot(T + 120, 0, "").limitedKeys()).isEmpty();
  }

  @Test
  void tally_pastMaxRules_countsUnderOther() {
    for (int i = 0; i < NodeStats.MAX_RULES; i++) {
      stats.tally("rule-" + i);
    }

    assertThat(stats.tally("one-too-many").rule()).isEqualTo(NodeStats.OTHER_RULES);
    assertThat(stats.tally("rule-3").rule()).isEqualTo("rule-3");
  }

  @Test
  void snapshot_rulesQuietFor15Minutes_areLeftOut() {
    stats.tally("login").record(Check.of("login", "alice"), allowed());
    stats.tick(T);

    assertThat(stats.snapshot(T + 899, 900, null).rates()).hasSize(1);
    stats.tick(T + 900);
    assertThat(stats.snapshot(T + 900, 900, null).rates()).isEmpty();
  }

  @Test
  void snapshot_latencyAndFrontEnds_areReported() {
    stats.recordLatency(200_000);
    stats.recordLatency(400_000);
    FrontEnd rest = stats.frontEnds().register("rest", "127.0.0.1:8080");
    rest.served("POST /v1/check");
    rest.failed("POST /v1/check");
    stats.leases(() -> new LeaseTotals(1, 10, 7, 3, 0, 0));
    stats.tick(T);

    NodeSnapshot snapshot = stats.snapshot(T, 1, null);

    assertThat(snapshot.latency().decisions()).containsExactly(2);
    assertThat(snapshot.latency().meanMicros()).containsExactly(300);
    assertThat(snapshot.frontEnds())
        .containsExactly(
            new FrontEndTotals(
                "rest",
                List.of("127.0.0.1:8080"),
                -1,
                List.of(new CommandTotals("POST /v1/check", 2, 1))));
    assertThat(snapshot.leases().answeredLocally()).isEqualTo(7);
  }

  @Test
  void lastClosedSecond_justAfterASecondEnds_isTheSecondBefore() {
    assertThat(NodeStats.lastClosedSecond(T * 1000 + 100)).isEqualTo(T - 2);
    assertThat(NodeStats.lastClosedSecond(T * 1000 + 200)).isEqualTo(T - 1);
  }
}
