package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two members' snapshots, merged the way the console shows them. */
class ClusterStatsTest {
  private static final long T = 1_800_000_000L;

  @Test
  void merge_twoMembers_sumsRatesSecondBySecondAndMergesFrontEndsAndKeys() {
    NodeStats a = NodeStats.manual("a");
    NodeStats b = NodeStats.manual("b");
    Decision denied = Decision.deny(1, 0, 1_000_000L, 1_000_000L);
    a.tally("login").record(Check.of("login", "mallory"), denied);
    b.tally("login").record(Check.of("login", "mallory"), denied);
    b.tally("login").record(Check.of("login", "eve"), denied);
    b.tally("api").record(Check.of("api", "x"), Decision.allow(1, 0, 1_000_000L));
    a.frontEnds().register("rest", "a:8080").served("POST /v1/check");
    b.frontEnds().register("rest", "b:8080").served("POST /v1/check");
    a.tick(T);
    b.tick(T);
    List<NodeSnapshot> snapshots = List.of(a.snapshot(T, 2, ""), b.snapshot(T, 2, ""));

    ClusterStats merged = ClusterStats.merge(T, 2, snapshots, GridView.NONE);

    assertThat(merged.nodes()).containsExactly("a", "b");
    assertThat(merged.rates()).extracting(RuleRates::rule).containsExactly("api", "login");
    assertThat(merged.rates().get(1).denied()).containsExactly(0, 3);
    assertThat(merged.frontEnds().get(0).listensOn()).containsExactly("a:8080", "b:8080");
    assertThat(merged.frontEnds().get(0).commands())
        .containsExactly(new CommandTotals("POST /v1/check", 2, 0));
    assertThat(ClusterStats.mergeKeys(snapshots).get("login").keys())
        .containsExactly(new KeyCount("mallory", 2, 0), new KeyCount("eve", 1, 0));
  }

  @Test
  void merge_ruleLatency_weightsEachNodesMeanByItsTimedChecks() {
    NodeStats a = NodeStats.manual("a");
    NodeStats b = NodeStats.manual("b");
    a.tally("login").recordLatency(100_000); // 1 check of 100 µs
    for (int i = 0; i < 3; i++) {
      b.tally("login").record(Check.of("login", "k"), Decision.allow(5, 4, 1_000_000L));
      b.tally("login").recordLatency(300_000); // 3 of 300 µs
    }
    a.tally("login").record(Check.of("login", "k"), Decision.allow(5, 4, 1_000_000L));
    a.tick(T);
    b.tick(T);

    RuleRates login =
        ClusterStats.merge(
                T, 1, List.of(a.snapshot(T, 1, null), b.snapshot(T, 1, null)), GridView.NONE)
            .rates()
            .get(0);

    assertThat(login.timed()).containsExactly(4);
    assertThat(login.meanMicros()).containsExactly(250);
  }

  @Test
  void merge_latency_weightsMeansAndTakesTheLargestP99() {
    LatencySeries one =
        new LatencySeries(new int[] {1}, new int[] {100}, new int[] {150}, new int[] {200});
    LatencySeries three =
        new LatencySeries(new int[] {3}, new int[] {300}, new int[] {400}, new int[] {500});

    LatencySeries merged = LatencySeries.merge(List.of(one, three), 1);

    assertThat(merged.decisions()).containsExactly(4);
    assertThat(merged.meanMicros()).containsExactly(250);
    assertThat(merged.p99Micros()).containsExactly(400);
    assertThat(merged.maxMicros()).containsExactly(500);
  }

  @Test
  void merge_snapshotOfOtherSeconds_isRefused() {
    NodeStats a = NodeStats.manual("a");

    assertThatThrownBy(
            () -> ClusterStats.merge(T, 2, List.of(a.snapshot(T - 1, 2, null)), GridView.NONE))
        .hasMessageContaining("covers other seconds");
  }
}
