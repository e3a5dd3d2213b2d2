package dev.sluice.core.grid.member;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.EntryView;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The sweep that replaced the per-entry TTL for rule states ({@link StateSweeper}), on real
 * members: it removes a state, on its owner and its backup, once the state decides as an absent key
 * would plus {@link StateSweeper#MARGIN_NANOS}, never earlier, and within one period and one pass
 * after that. The bound for a state written at {@code t} that counts for {@code u} more:
 *
 * <pre>
 *   t + u + 1 s  &lt;=  removed  &lt;=  t + u + 1 s + P + D     (P the period, D one pass)
 * </pre>
 */
class StateSweeperTest {
  private static final long MARGIN_MILLIS =
      TimeUnit.NANOSECONDS.toMillis(StateSweeper.MARGIN_NANOS);

  /** Every wait here is bounded by this. */
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + PATIENCE + ": " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Waits until every member has completed {@code count} more sweep passes. */
  private static void awaitPasses(GridTestCluster cluster, int count) throws InterruptedException {
    List<Long> targets = new ArrayList<>();
    for (HazelcastInstance member : cluster.members) {
      targets.add(MemberContext.of(member).sweeper().passes() + count);
    }
    for (int i = 0; i < cluster.members.size(); i++) {
      StateSweeper sweeper = MemberContext.of(cluster.members.get(i)).sweeper();
      long target = targets.get(i);
      await(count + " more sweep passes on member " + i, () -> sweeper.passes() >= target);
    }
  }

  private static long owned(GridTestCluster cluster) {
    return cluster.members.stream()
        .mapToLong(m -> m.getMap(GridNames.STATE_MAP).getLocalMapStats().getOwnedEntryCount())
        .sum();
  }

  private static long backups(GridTestCluster cluster) {
    long backups = 0;
    for (HazelcastInstance member : cluster.members) {
      LocalMapStats stats = member.getMap(GridNames.STATE_MAP).getLocalMapStats();
      backups += stats.getBackupEntryCount();
    }
    return backups;
  }

  /**
   * Manual clock, two members: t=0 fifty keys of 5 per 100 ms, each admitted once; passes at t=0
   * and at t = 2W + 1 s - 1 ms keep all fifty (the window they were written in, and the next one
   * that weighs it, have not both passed plus the margin); at t = 2W + 1 s they go, owners and
   * backups.
   */
  @Test
  void idleStates_keptWhileTheyCount_sweptFromOwnersAndBackupsOnceFresh() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 2)) {
      cluster.awaitSafe();
      GridRateLimiter limiter = cluster.limiter(0);
      Duration window = Duration.ofMillis(100);
      limiter.rules().put(new Rule("short", Policy.of(5, window)));
      for (int i = 0; i < 50; i++) {
        assertThat(limiter.tryAcquire("short", "key-" + i).allowed()).isTrue();
      }
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).isEqualTo(50);

      cluster.clock.advance(window.multipliedBy(2).plusMillis(MARGIN_MILLIS - 1));
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).as("one millisecond before the bound").isEqualTo(50);
      assertThat(backups(cluster)).isEqualTo(50);

      cluster.clock.advance(Duration.ofMillis(1));
      await("owners and backups empty", () -> owned(cluster) == 0 && backups(cluster) == 0);
      assertThat(limiter.stateCount()).isZero();
      // A key swept decides as a new one.
      assertThat(limiter.tryAcquire("short", "key-0").remaining()).isEqualTo(4);
    }
  }

  /**
   * A rule whose window changed: its keys' states were written under the former policy, and a
   * decision would carry them over, so the sweep judges them by the former policy. t=0 five
   * admitted under 5 per 10 s, the rule becomes 5 per 100 ms; at t = 2 × 100 ms + 1 s the new
   * policy would call the state fresh but the former does not, so it is kept; at t = 2 × 10 s + 1 s
   * it goes.
   */
  @Test
  void reshapedRule_statesJudgedByThePolicyThatWroteThem() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 1)) {
      GridRateLimiter limiter = cluster.limiter(0);
      limiter.rules().put(new Rule("reshaped", Policy.of(5, Duration.ofSeconds(10))));
      for (int i = 0; i < 5; i++) {
        assertThat(limiter.tryAcquire("reshaped", "k").allowed()).isTrue();
      }
      Policy shorter = Policy.of(5, Duration.ofMillis(100));
      limiter.rules().put(new Rule("reshaped", shorter));
      MemberContext member = MemberContext.of(cluster.members.get(0));
      await(
          "the member has the new rule", () -> shorter.equals(member.record("reshaped").policy()));

      cluster.clock.advance(Duration.ofMillis(200 + MARGIN_MILLIS));
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).as("kept: the former 10 s window still counts").isEqualTo(1);

      cluster.clock.advance(Duration.ofSeconds(20));
      await("the reshaped key swept", () -> limiter.stateCount() == 0);
    }
  }

  /**
   * A concurrency state counts until its last permit expires, not until a window passes: manual
   * clock, limit 1, permitTtl 1 s. t=0 a permit is taken on "held" and never released; a pass at t
   * = 1 s + 1 s - 1 ms keeps it (and the key still refuses a second permit until 1 s); at t = 1 s +
   * 1 s it goes, and the key admits again as a new one.
   */
  @Test
  void concurrencyState_keptUntilItsLastPermitExpires_thenSwept() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 1)) {
      GridRateLimiter limiter = cluster.limiter(0);
      Duration permitTtl = Duration.ofSeconds(1);
      Policy oneInFlight =
          new Policy(
              List.of(
                  Limit.builder()
                      .algorithm(Algorithm.CONCURRENCY)
                      .limit(1)
                      .window(permitTtl)
                      .build()),
              false,
              false);
      limiter.rules().put(new Rule("jobs", oneInFlight));
      assertThat(limiter.tryAcquire("jobs", "held").permitId()).isPositive();
      assertThat(limiter.tryAcquire("jobs", "held").allowed()).as("the permit is held").isFalse();

      cluster.clock.advance(permitTtl.plusMillis(MARGIN_MILLIS - 1));
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).as("one millisecond before the bound").isEqualTo(1);

      cluster.clock.advance(Duration.ofMillis(1));
      await("the expired permit's state swept", () -> limiter.stateCount() == 0);
      assertThat(limiter.tryAcquire("jobs", "held").allowed()).isTrue();
    }
  }

  /**
   * A key's own state is fresh after its 1 s window, but an open reservation keeps it for its ttl:
   * swept sooner, its commit would find nothing and skip the charge.
   */
  @Test
  void stateWithAnOpenReservation_keptUntilTheReservationExpires_thenSwept() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 1)) {
      GridRateLimiter limiter = cluster.limiter(0);
      limiter.rules().put(new Rule("tokens", Policy.of(100, Duration.ofSeconds(1))));
      Duration ttl = Duration.ofSeconds(5);
      assertThat(limiter.reserve("tokens", "team", 40, ttl).allowed()).isTrue();

      cluster.clock.advance(ttl.plusMillis(MARGIN_MILLIS - 1));
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).as("one millisecond before the bound").isEqualTo(1);

      cluster.clock.advance(Duration.ofMillis(1));
      await("the expired reservation's state swept", () -> limiter.stateCount() == 0);
      assertThat(MemberContext.of(cluster.members.get(0)).reservationsSettledAtEstimate())
          .as("the sweep settled it at its estimate, once")
          .isEqualTo(1);
    }
  }

  /**
   * A state under a state name keeps the policy that wrote it, so the sweep judges it as it judges
   * a rule's, and it is written without a TTL: gcra 5 per 100 ms, burst 4, one taken at t=0; a pass
   * at t = 20 ms + 1 s - 1 ms keeps it, at t = 20 ms + 1 s it goes.
   */
  @Test
  void statesUnderAStateName_haveNoTtl_andAreSweptOnceFresh() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 1)) {
      GridRateLimiter limiter = cluster.limiter(0);
      Policy gcra =
          Policy.builder()
              .algorithm(Algorithm.GCRA)
              .limit(5)
              .window(Duration.ofMillis(100))
              .burst(4)
              .build();
      PolicyRef ref = PolicyRef.inlineUnder("redis", gcra);
      assertThat(limiter.tryAcquire(new Check(ref, "k", 1)).allowed()).isTrue();
      IMap<String, StateValue> states = cluster.members.get(0).getMap(GridNames.STATE_MAP);
      assertThat(states.getEntryView(ref.stateKey("k")).getTtl()).isEqualTo(Long.MAX_VALUE);

      cluster.clock.advance(Duration.ofMillis(20 + MARGIN_MILLIS - 1));
      awaitPasses(cluster, 3);
      assertThat(limiter.stateCount()).as("one millisecond before the bound").isEqualTo(1);

      cluster.clock.advance(Duration.ofMillis(1));
      await("the state under a name swept", () -> limiter.stateCount() == 0);
    }
  }

  /** Inline policies' keys name their policy only by a hash: they keep their TTL, unswept. */
  @Test
  void inlineStates_keepTheirTtl() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startSweepingEvery(20, 1)) {
      GridRateLimiter limiter = cluster.limiter(0);
      limiter.rules().put(new Rule("named", Policy.of(5, Duration.ofSeconds(10))));
      limiter.tryAcquire("named", "k");
      limiter.tryAcquire(
          dev.sluice.core.Check.inline(Policy.of(5, Duration.ofSeconds(10)), "k", 1));
      IMap<String, StateValue> states = cluster.members.get(0).getMap(GridNames.STATE_MAP);
      Map<Boolean, Long> ttlByInline = new LinkedHashMap<>();
      for (String key : states.keySet()) {
        EntryView<String, StateValue> view = states.getEntryView(key);
        ttlByInline.put(dev.sluice.core.StateKey.isInline(key), view.getTtl());
      }
      assertThat(ttlByInline).containsOnlyKeys(true, false);
      assertThat(ttlByInline.get(true)).as("inline TTL").isLessThan(Duration.ofDays(1).toMillis());
      assertThat(ttlByInline.get(false)).as("rule state TTL").isEqualTo(Long.MAX_VALUE);
    }
  }

  /**
   * The system clock, three members sweeping every 200 ms, sub-second and one-second windows: each
   * key is saturated, then left idle. Polled every few milliseconds, no key is ever missing before
   * the instant its state stops counting plus the margin, and every key is gone, owners and
   * backups, within the bound.
   */
  @Test
  @Tag("realtime") // the sweep on the system clock, judged by its lag on a loaded machine
  void realClock_idleKeysNeverRemovedEarly_goneWithinTheBound() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.startOnSystemClock(3)) {
      cluster.awaitSafe();
      // No leases: a lease's return would write its key later than the loop below.
      GridRateLimiter limiter =
          cluster.limiter(
              cluster.members.get(0), GridRateLimiter.Options.defaults().withLeases(false));
      Map<String, Policy> rules = new LinkedHashMap<>();
      rules.put("sw-20-500ms", Policy.builder().limit(20).window(Duration.ofMillis(500)).build());
      rules.put("sw-50-1s", Policy.builder().limit(50).window(Duration.ofSeconds(1)).build());
      rules.put(
          "fw-20-500ms",
          Policy.builder()
              .algorithm(Algorithm.FIXED_WINDOW)
              .limit(20)
              .window(Duration.ofMillis(500))
              .build());
      rules.put(
          "tb-5-200ms",
          Policy.builder()
              .algorithm(Algorithm.TOKEN_BUCKET)
              .limit(5)
              .window(Duration.ofMillis(200))
              .build());
      rules.put(
          "gcra-50-1s",
          Policy.builder()
              .algorithm(Algorithm.GCRA)
              .limit(50)
              .window(Duration.ofSeconds(1))
              .build());
      TimeSource clock = TimeSource.system();
      IMap<String, StateValue> states = cluster.members.get(0).getMap(GridNames.STATE_MAP);
      // When each key's state stops counting: read back after its last write, at a known instant.
      Map<String, Long> freshAt = new LinkedHashMap<>();
      for (Map.Entry<String, Policy> rule : rules.entrySet()) {
        limiter.rules().put(new Rule(rule.getKey(), rule.getValue()));
        for (int k = 0; k < 4; k++) {
          String subject = "idle-" + k;
          for (long i = 0; i < rule.getValue().limit() + 2; i++) {
            limiter.tryAcquire(rule.getKey(), subject);
          }
          String stateKey = rule.getKey() + "|" + subject;
          StoredState stored = StateValue.stored(states.get(stateKey));
          assertThat(stored).as(stateKey).isNotNull();
          LimiterAlgorithm algorithm = LimiterAlgorithm.of(rule.getValue());
          long now = clock.nowNanos();
          freshAt.put(
              stateKey,
              now + algorithm.untilFreshNanos(algorithm.fit(stored.values().clone()), now));
        }
      }
      long margin = StateSweeper.MARGIN_NANOS;
      long latestFresh = freshAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      Map<String, Long> goneAt = new LinkedHashMap<>();
      long deadline = latestFresh + margin + PATIENCE.toNanos();
      while (goneAt.size() < freshAt.size() && clock.nowNanos() < deadline) {
        for (Map.Entry<String, Long> key : freshAt.entrySet()) {
          if (goneAt.containsKey(key.getKey())) {
            continue;
          }
          boolean present = states.containsKey(key.getKey());
          long seen = clock.nowNanos();
          if (!present) {
            assertThat(seen)
                .as("%s removed before its state stopped counting plus the margin", key.getKey())
                .isGreaterThanOrEqualTo(key.getValue() + margin);
            goneAt.put(key.getKey(), seen);
          }
        }
        Thread.sleep(2);
      }
      assertThat(goneAt).as("keys removed").hasSameSizeAs(freshAt);
      long period = TimeUnit.MILLISECONDS.toNanos(GridTestCluster.SYSTEM_CLOCK_SWEEP_MILLIS);
      long longestPass = 0;
      for (HazelcastInstance member : cluster.members) {
        longestPass = Math.max(longestPass, MemberContext.of(member).sweeper().longestPassNanos());
      }
      long worstLag = 0;
      for (Map.Entry<String, Long> key : goneAt.entrySet()) {
        worstLag = Math.max(worstLag, key.getValue() - freshAt.get(key.getKey()) - margin);
      }
      System.out.printf(
          "sweep on the real clock: %d keys removed at most %.0f ms after stopping to count plus"
              + " the 1 s margin; bound P + D = %d ms + %.0f ms (longest pass) plus polling%n",
          goneAt.size(), worstLag / 1e6, period / 1_000_000, longestPass / 1e6);
      // P + D, plus the poll's own round over the keys and a scheduling allowance for a busy box.
      assertThat(worstLag).isLessThan(period + longestPass + TimeUnit.SECONDS.toNanos(2));
      await("backups empty", () -> owned(cluster) == 0 && backups(cluster) == 0);
    }
  }
}
