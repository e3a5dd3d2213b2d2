package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridRuleStore;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.rules.RuleCache;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The client against two real members on loopback: near cache, denied cache, coalescing. */
@ExtendWith(Seeds.class)
class SluiceClientGridTest {
  private static GridMembers grid;
  private static SluiceClient client;

  @BeforeAll
  static void startGrid() {
    grid = GridMembers.start(2);
    client = grid.client().callTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void stopGrid() {
    if (client != null) {
      client.close();
    }
    if (grid != null) {
      grid.close();
    }
  }

  private static String unique(String base) {
    return base + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  @Tag("realtime") // a rule change reaches the client within a second, on the wall clock
  void rules_changedOnAMember_reachTheClientWithinASecond() throws Exception {
    String rule = unique("near");
    GridRuleStore memberRules = new GridRuleStore(grid.members.get(1));
    memberRules.put(new Rule(rule, Policy.of(1, Duration.ofHours(1))));
    assertThat(client.rules().find(rule).orElseThrow().policy().limit()).isEqualTo(1);
    // The put's own change event may reach the client after that first read and drop the entry it
    // cached; once the event has passed, a read caches the rule for good.
    long cachedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!((RuleCache) client.rules()).isCached(rule) && System.nanoTime() < cachedBy) {
      Thread.sleep(5); // waiting for a cluster event, not for limiter time
      client.rules().find(rule);
    }
    assertThat(((RuleCache) client.rules()).isCached(rule)).isTrue();

    // The key is denied and the client remembers it for an hour.
    assertThat(client.tryAcquire(rule, "k").allowed()).isTrue();
    assertThat(client.tryAcquire(rule, "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.tryAcquire(rule, "k").decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);

    // An operator raises the limit on another member: the client sees it within a second, and
    // forgets the denial instead of waiting out the hour.
    long start = System.nanoTime();
    memberRules.put(new Rule(rule, Policy.of(10, Duration.ofHours(1))));
    long limit = 0;
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
      limit = client.rules().find(rule).orElseThrow().policy().limit();
      if (limit == 10) {
        break;
      }
      Thread.sleep(5); // waiting for a cluster event, not for limiter time
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("rule change reached the client in " + millis + " ms");
    assertThat(limit).isEqualTo(10);
    assertThat(millis).isLessThan(1_000);
    Decision after = client.tryAcquire(rule, "k");
    assertThat(after.allowed()).isTrue();
    assertThat(after.decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  /**
   * The client with its denied cache, against the grid, decides exactly as a local limiter fed the
   * same requests at the same instants: never more permissive, never stricter. Leases are off: with
   * them the answers part from such a limiter's, rightly (the next test).
   */
  @RepeatedTest(3)
  void tryAcquire_randomTraffic_decidesExactlyAsALocalLimiter() {
    try (SluiceClient exact =
        grid.client().callTimeout(Duration.ofSeconds(5)).leases(false).build()) {
      decidesExactlyAsALocalLimiter(exact);
    }
  }

  private static void decidesExactlyAsALocalLimiter(SluiceClient client) {
    Random random = Seeds.random();
    Algorithm algorithm = Algorithm.values()[random.nextInt(Algorithm.values().length)];
    Policy policy =
        Policy.builder()
            .algorithm(algorithm)
            .limit(1 + random.nextInt(8))
            .window(Duration.ofSeconds(10 + random.nextInt(50)))
            .build();
    String rule = unique("prop");
    LocalRateLimiter local = putOnTheGridAndLocally(client, rule, policy);

    int cached = 0;
    for (int i = 0; i < 300; i++) {
      grid.clock.advanceNanos((long) (random.nextDouble() * policy.windowNanos() / 8));
      String key = "k" + random.nextInt(3);
      long permits = 1 + random.nextInt((int) Math.min(2, policy.limit()));
      Decision expected = local.tryAcquire(rule, key, permits);
      Decision actual = client.tryAcquire(rule, key, permits);
      assertThat(actual.allowed())
          .as("%s, request %d: %s x%d", policy, i, key, permits)
          .isEqualTo(expected.allowed());
      assertThat(actual.decidedBy()).isIn(DecidedBy.LIMITER, DecidedBy.DENIED_CACHE);
      if (actual.decidedBy() == DecidedBy.DENIED_CACHE) {
        cached++;
      }
    }
    System.out.println(policy + ": " + cached + " of 300 answered by the denied cache");
  }

  /**
   * The client with leases, against the grid, on every algorithm: each request it admits, from a
   * lease or at the owner, is one the owner alone admits when it decides exactly the requests the
   * client admitted, at their instants (a local limiter fed only those). A local limiter fed every
   * request is no judge here: a lease's permits, parked until its bucket or window ends, deny a
   * request that limiter admits, and from there the two histories part, so that later the client
   * may rightly admit a request which that limiter, a permit further on, denies (on sliding_buckets
   * rules, once the lease's bucket leaves the window; LeaseTracePropertiesTest shows it in
   * numbers).
   */
  @RepeatedTest(2)
  void tryAcquire_randomTrafficWithLeases_admitsNothingTheOwnerAloneDeniesOnTheSameHistory() {
    Random random = Seeds.random();
    int fromLeases = 0;
    int byPolicy = 0;
    String leaseCounts;
    // Every other algorithm (from a random one) is busy: with a coin per algorithm, one repetition
    // in 256 drew no busy key at all, was granted no lease, and failed the check at the end.
    int busyParity = random.nextInt(2);
    try (SluiceClient leasing = grid.client().callTimeout(Duration.ofSeconds(5)).build()) {
      for (Algorithm algorithm : Algorithm.values()) {
        // Small limits and steps of up to an eighth of the window, so that leases outlive their
        // buckets and the histories part; or busy keys with room, so that leases answer.
        boolean busy = algorithm.ordinal() % 2 == busyParity;
        Policy policy =
            Policy.builder()
                .algorithm(algorithm)
                .limit(busy ? 50 + random.nextInt(451) : 1 + random.nextInt(8))
                .window(Duration.ofSeconds(10 + random.nextInt(50)))
                .build();
        String rule = unique("leased");
        LocalRateLimiter ownerAlone = putOnTheGridAndLocally(leasing, rule, policy);
        long step = policy.windowNanos() / (busy ? 2_000 : 8);
        for (int i = 0; i < 300; i++) {
          grid.clock.advanceNanos((long) (random.nextDouble() * step));
          String key = "k" + random.nextInt(3);
          long permits = 1 + random.nextInt((int) Math.min(2, policy.limit()));
          Decision actual = leasing.tryAcquire(rule, key, permits);
          if (actual.decidedBy() == DecidedBy.FAIL_OPEN
              || actual.decidedBy() == DecidedBy.FAIL_CLOSED) {
            // The grid did not answer within the call timeout (a starved JVM on a loaded
            // machine): the failure policy's answer is an outage's, outside what is judged here.
            byPolicy++;
            continue;
          }
          if (actual.allowed()) {
            assertThat(ownerAlone.tryAcquire(rule, key, permits).allowed())
                .as("%s, request %d: %s x%d, %s", policy, i, key, permits, actual.decidedBy())
                .isTrue();
          }
          if (actual.decidedBy() == DecidedBy.LEASE) {
            fromLeases++;
          }
        }
      }
      // What the holder did, for the failure message: no lease granted, or granted and not used.
      LeaseHolder.Statistics leases = ((GridRateLimiter) leasing.delegate()).leaseStatistics();
      leaseCounts =
          String.format(
              Locale.ROOT,
              "granted %d, permits leased %d, answered here %d, returned %d, expired unused %d,"
                  + " keys tracked %d",
              leases.granted(),
              leases.permitsLeased(),
              leases.answeredLocally(),
              leases.returned(),
              leases.expiredUnused(),
              leases.keysTracked());
    }
    System.out.println(
        fromLeases
            + " of "
            + 300 * Algorithm.values().length
            + " from leases, "
            + byPolicy
            + " by the failure policy");
    assertThat(fromLeases).as("requests answered from leases (%s)", leaseCounts).isPositive();
  }

  /**
   * Puts {@code rule} on the grid through {@code client}; a local limiter of it on the grid's
   * clock.
   */
  private static LocalRateLimiter putOnTheGridAndLocally(
      SluiceClient client, String rule, Policy policy) {
    client.rules().put(new Rule(rule, policy));
    return LocalRateLimiter.builder()
        .timeSource(grid.clock)
        .rules(List.of(new Rule(rule, policy)))
        .build();
  }

  @ParameterizedTest(name = "leases {0}")
  @ValueSource(booleans = {false, true})
  void tryAcquire_sixteenThreadsOnOneHotKey_neverOverAdmit(boolean leases) throws Exception {
    String rule = unique("hot");
    client.rules().put(new Rule(rule, Policy.of(500, Duration.ofHours(1))));
    SluiceClient coalescing =
        grid.client().callTimeout(Duration.ofSeconds(5)).deniedCacheSize(0).leases(leases).build();
    // Without leases every answer comes from the owner (coalesced); with them, a hot key is
    // answered from permits the owner admitted in advance as well.
    List<DecidedBy> expected =
        leases ? List.of(DecidedBy.LIMITER, DecidedBy.LEASE) : List.of(DecidedBy.LIMITER);
    ExecutorService threads = Executors.newFixedThreadPool(16);
    try {
      AtomicInteger admitted = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        done.add(
            threads.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 60; i++) {
                    Decision d = coalescing.tryAcquire(rule, "key");
                    assertThat(d.decidedBy()).isIn(expected);
                    if (d.allowed()) {
                      admitted.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      // 960 calls for 500 permits on a frozen clock: exactly 500, as serial calls would admit.
      assertThat(admitted.get()).isEqualTo(500);
      assertThat(client.peek(rule, "key").remaining()).isZero();
    } finally {
      threads.shutdownNow();
      coalescing.close();
    }
  }
}
