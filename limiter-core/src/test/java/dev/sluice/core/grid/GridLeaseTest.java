package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.BatchMode;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.grid.transport.PartitionHold;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.metrics.LeaseMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Leases on a grid of two members on the manual clock: a holder (a member's limiter, or a client's)
 * answers a hot key from permits its owner admitted in advance, and everything around it keeps its
 * word: the counts at the owner, what a local answer reports, the return of unused permits when the
 * lease ends or the holder closes, a reset, a rule that turns leases off, batches, and the metrics.
 */
class GridLeaseTest {
  /**
   * The rule most tests use: a window of ten seconds, so that a key asked a few times here takes no
   * lease until it is hot, warm or steady (a quiet key leases only on a window of a second or
   * less), and no test meets the window's end unless it says so.
   */
  private static final Policy HUNDRED_PER_TEN_SECONDS = Policy.of(100, Duration.ofSeconds(10));

  /** A window of a second: where a test needs the window to end, or quiet keys to lease. */
  private static final Policy HUNDRED_PER_SECOND = Policy.of(100, Duration.ofSeconds(1));

  private static GridTestCluster cluster;
  private static GridRateLimiter observer;
  private GridRateLimiter holder;
  private String k;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(2);
    observer =
        cluster.limiter(
            cluster.members.get(1), GridRateLimiter.Options.defaults().withLeases(false));
    observer.rules().put(new Rule("api", HUNDRED_PER_TEN_SECONDS));
    observer.rules().put(new Rule("api1s", HUNDRED_PER_SECOND));
    observer.rules().put(new Rule("bulk", Policy.of(100_000, Duration.ofHours(1))));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /** A fresh holder (its own leases and statistics) and a key no other test touched. */
  @BeforeEach
  void freshHolderAndKey(TestInfo test) {
    holder = cluster.limiter(0);
    k = test.getTestMethod().orElseThrow().getName();
    // Each test starts 10 ms into a ten-second window (and so into a second), whatever the tests
    // before it advanced the shared clock by: a lease to the end of the window ends with it, and a
    // test's lease must not meet that end unless the test says so.
    long tenSeconds = Duration.ofSeconds(10).toNanos();
    cluster.clock.advanceNanos(
        tenSeconds - Math.floorMod(cluster.clock.nowNanos(), tenSeconds) + 10_000_000L);
  }

  @Test
  void hotKey_isAnsweredFromALease_andReportsWhatTheOwnerAloneWouldHave() {
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      decisions.add(holder.tryAcquire("api", k));
    }
    // The first requests go to the owner; from the eighth the key is hot and leased. A lease that
    // runs out sends one request to the owner, which brings the next, larger lease.
    assertThat(decisions.subList(0, 8)).allMatch(d -> d.decidedBy() == DecidedBy.LIMITER);
    assertThat(decisions.subList(8, 40))
        .filteredOn(d -> d.decidedBy() == DecidedBy.LEASE)
        .hasSizeGreaterThanOrEqualTo(29);
    // One holder alone reads the same remaining as if the owner had decided every request.
    for (int i = 0; i < 40; i++) {
      assertThat(decisions.get(i).allowed()).isTrue();
      assertThat(decisions.get(i).remaining()).as("request %d", i + 1).isEqualTo(99 - i);
    }
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    assertThat(statistics.granted()).isGreaterThanOrEqualTo(1);
    long local = decisions.stream().filter(d -> d.decidedBy() == DecidedBy.LEASE).count();
    assertThat(statistics.answeredLocally()).isEqualTo(local);
    // The owner counts the lease whole: what others see left excludes the permits parked here.
    long parked = statistics.permitsLeased() - statistics.answeredLocally();
    assertThat(observer.peek("api", k).remaining()).isEqualTo(100 - 40 - parked);
  }

  @Test
  void keyAnsweredFromLeases_staysHot_soItsNextLeaseGrowsWithItsRate() {
    for (int i = 0; i < 8; i++) {
      holder.tryAcquire("bulk", k); // the eighth is hot and brings the first lease
    }
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    long first = statistics.permitsLeased();
    assertThat(first).isPositive();
    Decision next = holder.tryAcquire("bulk", k);
    for (int i = 0; i < 1_000 && next.decidedBy() == DecidedBy.LEASE; i++) {
      next = holder.tryAcquire("bulk", k);
    }
    // The first lease spent, one request went to the owner. Within the same 100 ms the key saw 8
    // requests there and `first` here: counting only the owner's 9 would ask for a lease as small
    // as the first, and a hot key would keep paying round trips.
    assertThat(next.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    long second = statistics.permitsLeased() - first;
    assertThat(second).isGreaterThanOrEqualTo(2 * first);
  }

  /**
   * A lease big enough to be renewed ahead (docs/client.md, "Leases"): the ask for the next one
   * goes to the owner in the background, and the owner counts what it grants then, as it counts a
   * lease granted with a request. Without that count the owner would hand out permits it never
   * counted.
   */
  @Test
  void bigLease_isRenewedAhead_andTheOwnerCountsTheRenewal() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    FirstRenewal first = untilTheFirstRenewalIsKept();

    long admitted = statistics.answeredLocally() + first.byOwner();
    long parked = statistics.permitsLeased() - statistics.answeredLocally();
    assertThat(observer.peek("bulk", k).remaining())
        .as("the owner counts every admission and every permit parked here, the renewal's too")
        .isEqualTo(100_000 - admitted - parked);
  }

  @Test
  void endedLease_givesItsUnusedPermitsBack() {
    for (int i = 0; i < 9; i++) {
      holder.tryAcquire("api", k);
    }
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    long leased = statistics.permitsLeased();
    assertThat(leased).isPositive();
    assertThat(observer.peek("api", k).remaining()).isEqualTo(100 - 9 - (leased - 1));

    cluster.clock.advance(Duration.ofMillis(100)); // the longest lease, still in the window
    // The statistic counts permits when they are handed back, before the owner has applied
    // the release: wait for the owner too.
    awaitUntil(
        () -> statistics.returned() == leased - 1 && observer.peek("api", k).remaining() == 100 - 9,
        "the unused permits returned");
    // The lease is gone: the next request goes to the owner again.
    assertThat(holder.tryAcquire("api", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void steadyKey_isLeasedToTheEndOfItsWindow_andTheEndedLeaseIsNotSentBack() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    untilASteadyLeaseIsGranted("api");
    long leased = statistics.permitsLeased();
    assertThat(leased)
        .as("a quarter of what is left at most, and what was asked")
        .isBetween(1L, 6L);
    assertThat(holder.tryAcquire("api", k).decidedBy()).isEqualTo(DecidedBy.LEASE);

    // Past the window's end (at 10 s) a return would free nothing at the owner: it is not sent,
    // and the unused permits are counted as expired.
    cluster.clock.advance(Duration.ofSeconds(9));
    awaitUntil(() -> statistics.expiredUnused() == leased - 1, "the ended lease taken out");
    assertThat(statistics.returned()).isZero();
    assertThat(holder.tryAcquire("api", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void steadyKeyGoneQuiet_givesItsLeaseBackBeforeALongWindowEnds() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    long admitted = untilASteadyLeaseIsGranted("bulk");
    long leased = statistics.permitsLeased();
    assertThat(observer.peek("bulk", k).remaining()).isEqualTo(100_000 - admitted - leased);

    // The window lasts an hour, and so does the lease: it still answers long after a short one
    // would have ended.
    cluster.clock.advance(Duration.ofMillis(999));
    assertThat(holder.tryAcquire("bulk", k).decidedBy()).isEqualTo(DecidedBy.LEASE);
    // A second without an answer: the lease goes back, and the owner no longer counts the rest.
    cluster.clock.advance(Duration.ofSeconds(1));
    awaitUntil(
        () ->
            statistics.returned() == leased - 1
                && observer.peek("bulk", k).remaining() == 100_000 - admitted - 1,
        "the idle lease returned");
    assertThat(statistics.expiredUnused()).isZero();
  }

  /**
   * A steady key answered from its lease stays steady: the answers count at their own instants, so
   * when the lease is spent the next one lasts to the end of the window too. Counted all at once,
   * they looked like a burst, and the key took short leases that ended unused between its requests.
   */
  @Test
  void steadyKey_whoseLeaseIsSpent_isLeasedToTheEndOfTheWindowAgain() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    untilASteadyLeaseIsGranted("bulk");
    long first = statistics.permitsLeased();
    for (long i = 0; i < first; i++) {
      cluster.clock.advance(Duration.ofMillis(300));
      assertThat(holder.tryAcquire("bulk", k).decidedBy()).isEqualTo(DecidedBy.LEASE);
    }
    cluster.clock.advance(Duration.ofMillis(300));
    assertThat(holder.tryAcquire("bulk", k).decidedBy())
        .as("the lease is spent: this one asks for the next")
        .isEqualTo(DecidedBy.LIMITER);
    assertThat(statistics.granted()).isEqualTo(2);
    // Longer than any short lease: the next request, 300 ms on, is answered from it.
    cluster.clock.advance(Duration.ofMillis(300));
    assertThat(holder.tryAcquire("bulk", k).decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(statistics.returned()).isZero();
  }

  /**
   * A rule that changes shape while a steady key holds a lease to the end of its window: the owner
   * carries the lease's permits over as admitted at the change, so the holder must not answer them
   * until the old window's end. It gives the lease back, and the owner decides.
   */
  @Test
  void ruleChangingShape_endsALeaseToTheEndOfTheWindow() {
    String rule = "reshaped-" + k;
    observer.rules().put(new Rule(rule, Policy.of(100_000, Duration.ofHours(1))));
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    untilASteadyLeaseIsGranted(rule);
    long leased = statistics.permitsLeased();
    assertThat(holder.tryAcquire(rule, k).decidedBy()).isEqualTo(DecidedBy.LEASE);

    // A put returns once every member's copy of the rules has it: the holder, a member, sees it.
    observer.rules().put(new Rule(rule, Policy.of(100_000, Duration.ofMinutes(1))));
    assertThat(holder.tryAcquire(rule, k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    awaitUntil(() -> statistics.returned() == leased - 1, "the lease given back");
  }

  @Test
  void closingTheHolder_givesEveryLeaseBack() {
    for (int i = 0; i < 9; i++) {
      holder.tryAcquire("api", k);
    }
    assertThat(observer.peek("api", k).remaining()).isLessThan(100 - 9);
    holder.close();
    assertThat(observer.peek("api", k).remaining()).isEqualTo(100 - 9);
  }

  @Test
  void closingWhileARenewalIsOnItsWay_givesTheRenewedLeaseBackToo() throws Exception {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    // Once the first renewal is kept, the holder answers from the current lease and the one behind
    // it, and crosses into the next one's last quarter without asking the owner anything (the
    // manual clock stands still, so no lease ends).
    FirstRenewal first = untilTheFirstRenewalIsKept();
    String stateKey = StateKey.of("bulk", k);
    // The key's partition thread held: the next renewal stays on its way until it is let go. The
    // hold runs on the key's owner, so no migration may move the key meanwhile.
    cluster.awaitSafe();
    PartitionHold hold =
        PartitionHold.on(PartitionHold.ownerOf(cluster.members, stateKey), stateKey);
    Thread closer = new Thread(holder::close, "closer");
    try {
      for (int i = 0; i < 200_000 && statistics.renewals() == 1; i++) {
        assertThat(holder.tryAcquire("bulk", k).decidedBy()).isEqualTo(DecidedBy.LEASE);
      }
      assertThat(statistics.renewals()).as("the second renewal went out").isEqualTo(2);
      closer.start();
      // The close has begun, and waits (for the renewal, or for returns stuck behind the hold).
      awaitUntil(() -> closer.getState() == Thread.State.TIMED_WAITING, "the close waiting");
    } finally {
      hold.close();
    }
    closer.join(Duration.ofSeconds(10).toMillis());
    assertThat(closer.isAlive()).isFalse();

    assertThat(statistics.granted()).as("the renewal was granted").isEqualTo(first.granted() + 1);
    long admitted = statistics.answeredLocally() + first.byOwner();
    assertThat(observer.peek("bulk", k).remaining())
        .as("the owner counts the admissions only: every lease came back")
        .isEqualTo(100_000 - admitted);
  }

  @Test
  void reset_dropsTheHoldersLease() {
    for (int i = 0; i < 9; i++) {
      holder.tryAcquire("api", k);
    }
    holder.reset(PolicyRef.rule("api"), k);
    Decision next = holder.tryAcquire("api", k);
    assertThat(next.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(next.remaining()).isEqualTo(99);
  }

  @Test
  void ruleWithLeasesOff_isAlwaysDecidedByTheOwner() {
    holder
        .rules()
        .put(
            new Rule(
                "strict",
                Policy.builder()
                    .limit(100)
                    .window(Duration.ofSeconds(1))
                    .leases(Policy.Leases.OFF)
                    .build()));
    for (int i = 0; i < 40; i++) {
      assertThat(holder.tryAcquire("strict", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    }
    assertThat(holder.leaseStatistics().granted()).isZero();
    assertThat(observer.peek("strict", k).remaining()).isEqualTo(60);
  }

  @Test
  void shadowRule_isNeverLeased() {
    holder.rules().put(new Rule("shadowed", HUNDRED_PER_SECOND.withShadow(true)));
    for (int i = 0; i < 40; i++) {
      assertThat(holder.tryAcquire("shadowed", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    }
  }

  @Test
  void nearTheLimit_theLastPermitsAreDecidedByTheOwner() {
    holder.rules().put(new Rule("small", Policy.of(20, Duration.ofSeconds(1))));
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      decisions.add(holder.tryAcquire("small", k));
    }
    assertThat(decisions.stream().filter(Decision::allowed).count()).isEqualTo(20);
    // The twentieth permit was never leased: a lease takes at most half of what is left.
    assertThat(decisions.get(19).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(decisions.subList(20, 30))
        .allMatch(d -> !d.allowed() && d.decidedBy() == DecidedBy.LIMITER);
  }

  @Test
  void eachAloneBatch_isAnsweredFromALease_allOrNothingNever() {
    for (int i = 0; i < 9; i++) {
      holder.tryAcquire("api", k);
    }
    List<Decision> each =
        holder.tryAcquireAll(List.of(Check.of("api", k), Check.of("api", k + "-other")));
    assertThat(each.get(0).decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(each.get(1).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    List<Decision> all =
        holder
            .tryAcquireAll(
                List.of(Check.of("api", k), Check.of("api", k + "-other")), BatchMode.ALL)
            .decisions();
    assertThat(all).allMatch(d -> d.decidedBy() == DecidedBy.LIMITER);
  }

  @Test
  void batchesAlone_bringALease() {
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      decisions.addAll(holder.tryAcquireAll(List.of(Check.of("api", k), Check.of("api", k))));
    }
    assertThat(decisions).allMatch(Decision::allowed);
    assertThat(decisions.subList(10, 20)).anyMatch(d -> d.decidedBy() == DecidedBy.LEASE);
    assertThat(observer.peek("api", k).remaining())
        .isEqualTo(
            100
                - 20
                - (holder.leaseStatistics().permitsLeased()
                    - holder.leaseStatistics().answeredLocally()));
  }

  /**
   * A warm key (20 a second here, never 8 within 100 ms) asks for a lease to the end of its window
   * where there is room: it answers for longer than a short lease could, and is not sent back once
   * its window has ended. Through a client too: the owner marks on the wire which kind it granted.
   */
  @Test
  void warmKey_isLeasedToTheEndOfItsWindow_byAMember() {
    assertAWarmKeyIsLeasedToTheEndOfItsWindow(holder);
  }

  @Test
  void warmKey_isLeasedToTheEndOfItsWindow_throughAClient() {
    GridRateLimiter client =
        cluster.limiter(cluster.newClient(), GridRateLimiter.Options.defaults());
    // A single check on a client does not wait for the rule's copy (its owner resolves the rule);
    // the copy comes with the read of every rule the client starts with. A lease to the end of the
    // window stored before that copy is here cannot be held to the rule's shape, so the holder
    // gives it back as soon as the copy lands. Here the copy is read first, as it is on any client
    // that has been up for a moment.
    assertThat(client.rules().find("api")).isPresent();
    assertAWarmKeyIsLeasedToTheEndOfItsWindow(client);
  }

  private void assertAWarmKeyIsLeasedToTheEndOfItsWindow(GridRateLimiter warmHolder) {
    LeaseHolder.Statistics statistics = warmHolder.leaseStatistics();
    // Ten requests 50 ms apart, from 10 ms into the window: the tenth, at 460 ms, makes the key
    // warm (10 in the last second) and asks for 10 × 1.5 = 15; 90 are left after it, a quarter of
    // them is 22, so all 15 are leased, to the window's end at 10 s.
    for (int i = 0; i < 10; i++) {
      assertThat(warmHolder.tryAcquire("api", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
      cluster.clock.advance(Duration.ofMillis(50));
    }
    assertThat(statistics.granted()).isEqualTo(1);
    assertThat(statistics.permitsLeased()).isEqualTo(15);
    assertThat(observer.peek("api", k).remaining()).isEqualTo(75);

    // The next ten, over 500 ms, all from the lease: a short one would have ended after 100 ms.
    for (int i = 0; i < 10; i++) {
      Decision decision = warmHolder.tryAcquire("api", k);
      assertThat(decision.decidedBy())
          .as("request %d after the grant", i + 1)
          .isEqualTo(DecidedBy.LEASE);
      assertThat(decision.remaining()).isEqualTo(89 - i);
      cluster.clock.advance(Duration.ofMillis(50));
    }
    assertThat(statistics.granted()).isEqualTo(1);

    // At 10,010 ms its window has ended: the 5 left are not sent back (the owner would free
    // nothing), and the next request goes to the owner.
    cluster.clock.advance(Duration.ofSeconds(9));
    awaitUntil(() -> statistics.expiredUnused() == 5, "the ended lease taken out");
    assertThat(statistics.returned()).isZero();
    assertThat(warmHolder.tryAcquire("api", k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  /**
   * A token bucket has no window to lease to: the same warm key's ask is answered with a short
   * lease of the ask's tenth of a second (15 a second: 2), given back when it ends.
   */
  @Test
  void warmKeyOfATokenBucket_isLeasedForAShortWhile() {
    String rule = "bucket-" + k;
    observer
        .rules()
        .put(
            new Rule(
                rule,
                Policy.builder()
                    .algorithm(Algorithm.TOKEN_BUCKET)
                    .limit(100)
                    .window(Duration.ofSeconds(1))
                    .build()));
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    for (int i = 0; i < 10; i++) {
      assertThat(holder.tryAcquire(rule, k).decidedBy()).isEqualTo(DecidedBy.LIMITER);
      cluster.clock.advance(Duration.ofMillis(50));
    }
    assertThat(statistics.permitsLeased()).isEqualTo(2);
    assertThat(holder.tryAcquire(rule, k).decidedBy()).isEqualTo(DecidedBy.LEASE);
    // 100 ms after the grant the lease has ended: the permit left goes back.
    cluster.clock.advance(Duration.ofMillis(50));
    awaitUntil(() -> statistics.returned() == 1, "the ended short lease given back");
    assertThat(statistics.expiredUnused()).isZero();
  }

  /**
   * A quiet key (asked every 300 ms here: never hot, not yet steady) on a window of a second asks
   * for a lease to the end of the window from its first request, so its later requests within the
   * window are answered here; the ended lease is not sent back. On a window of ten seconds it asks
   * for none, since an unused one would be sent back after a second idle.
   */
  @Test
  void quietKey_isLeasedToTheEndOfAWindowOfASecond_notOfALongerOne() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    // At 10 ms: 1 in the last second, once and a half rounded up: 2 leased (99 left, a quarter
    // is 24), to the window's end at 1 s.
    Decision first = holder.tryAcquire("api1s", k);
    assertThat(first.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(statistics.permitsLeased()).isEqualTo(2);
    assertThat(observer.peek("api1s", k).remaining()).isEqualTo(97);
    List<DecidedBy> decidedBy = new ArrayList<>();
    List<Decision> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      cluster.clock.advance(Duration.ofMillis(300));
      Decision decision = holder.tryAcquire("api1s", k);
      decidedBy.add(decision.decidedBy());
      answers.add(decision);
    }
    // A local answer's reset counts down from the grant's, as the owner's would: the lease's
    // permits were counted there at the grant.
    assertThat(answers.get(1).resetAfterNanos())
        .isEqualTo(first.resetAfterNanos() - Duration.ofMillis(600).toNanos());
    // 310 and 610 ms from the lease; at 910 ms it is spent, and the owner grants the next: 4 in
    // the last second, 6 requests' worth, to the same window's end.
    assertThat(decidedBy).containsExactly(DecidedBy.LEASE, DecidedBy.LEASE, DecidedBy.LIMITER);
    assertThat(statistics.granted()).isEqualTo(2);
    assertThat(statistics.permitsLeased()).isEqualTo(2 + 6);
    // Past the window's end the 6 unused are not sent back.
    cluster.clock.advance(Duration.ofMillis(300));
    awaitUntil(() -> statistics.expiredUnused() == 6, "the ended lease taken out");
    assertThat(statistics.returned()).isZero();

    String longer = k + "-ten-seconds";
    for (int i = 0; i < 3; i++) {
      assertThat(holder.tryAcquire("api", longer).decidedBy()).isEqualTo(DecidedBy.LIMITER);
      cluster.clock.advance(Duration.ofMillis(300));
    }
    assertThat(statistics.granted()).isEqualTo(2);
  }

  @Test
  void aClient_holdsLeasesToo() {
    GridRateLimiter client =
        cluster.limiter(cluster.newClient(), GridRateLimiter.Options.defaults());
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      decisions.add(client.tryAcquire("api", k));
    }
    assertThat(decisions.subList(8, 20)).allMatch(d -> d.decidedBy() == DecidedBy.LEASE);
    assertThat(decisions.get(7).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(decisions.get(19).remaining()).isEqualTo(80);
  }

  /**
   * A hot key at its limit (100 in the second before, 50 at half past this one: the estimate is at
   * 100, and one permit frees up every 10 ms as the second before weighs less): the holder's ask
   * brings a paced lease, and the holder then admits exactly what the owner alone would, each at
   * its instant, and denies the requests between them itself, with the wait to the next instant.
   */
  @Test
  void hotKeyAtItsLimit_isPaced_admittedHereAtEachPermitsInstant_deniedHereBetween() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LeaseMetrics.bind(holder.leaseStatistics(), registry);
    for (int i = 0; i < 100; i++) {
      assertThat(observer.tryAcquire("api1s", k).allowed()).isTrue();
    }
    cluster.clock.advance(Duration.ofMillis(1_490)); // half past the next second
    assertThat(observer.tryAcquire(Check.of("api1s", k, 50)).allowed()).isTrue();
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    for (int i = 0; i < 8; i++) {
      Decision denied = holder.tryAcquire("api1s", k);
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.decidedBy()).isEqualTo(DecidedBy.LIMITER); // the eighth asks for a lease
    }
    assertThat(statistics.granted()).as("a paced lease").isEqualTo(1);
    assertThat(statistics.permitsLeased()).as("what frees up in 100 ms").isEqualTo(10);

    Decision early = holder.tryAcquire("api1s", k);
    assertThat(early.allowed()).isFalse();
    assertThat(early.decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(early.retryAfterNanos()).as("the first frees up 1 ns after half past").isEqualTo(1);

    // A request every millisecond: one admitted every 10 ms, here. The lease's tenth permit used
    // (at 91 ms), the next request goes to the owner, which denies it and paces the next 100 ms.
    List<Long> admittedAtMillis = new ArrayList<>();
    List<Long> ownerAtMillis = new ArrayList<>();
    for (int ms = 1; ms <= 150; ms++) {
      cluster.clock.advance(Duration.ofMillis(1));
      Decision decision = holder.tryAcquire("api1s", k);
      if (decision.decidedBy() == DecidedBy.LIMITER) {
        assertThat(decision.allowed()).as("at %d ms", ms).isFalse();
        ownerAtMillis.add((long) ms);
      } else if (decision.allowed()) {
        admittedAtMillis.add((long) ms);
      } else {
        assertThat(decision.retryAfterNanos())
            .as("at %d ms, the wait for the next instant", ms)
            .isEqualTo(Duration.ofMillis((10 - ms % 10) % 10).toNanos() + 1);
      }
      assertThat(observer.peek("api1s", k).remaining()).as("at %d ms", ms).isZero();
    }
    assertThat(admittedAtMillis)
        .containsExactly(
            1L, 11L, 21L, 31L, 41L, 51L, 61L, 71L, 81L, 91L, 101L, 111L, 121L, 131L, 141L);
    assertThat(ownerAtMillis).containsExactly(92L);
    assertThat(statistics.granted()).isEqualTo(2);
    assertThat(statistics.answeredLocally()).isEqualTo(15);
    assertThat(statistics.deniedLocally()).isEqualTo(1 + 150 - 15 - 1);
    assertThat(registry.get(LeaseMetrics.DENIALS).functionCounter().count())
        .isEqualTo(1 + 150 - 15 - 1);
  }

  @Test
  void metrics_countWhatBecameOfTheLeasedPermits() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LeaseMetrics.bind(holder.leaseStatistics(), registry);
    for (int i = 0; i < 12; i++) {
      holder.tryAcquire("api", k);
    }
    cluster.clock.advance(Duration.ofMillis(100));
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    awaitUntil(() -> statistics.returned() > 0, "the unused permits returned");

    assertThat(registry.get(LeaseMetrics.GRANTED).functionCounter().count())
        .isEqualTo(statistics.granted());
    double leased = permits(registry, "leased");
    assertThat(permits(registry, "answered_locally")).isEqualTo(4);
    assertThat(permits(registry, "answered_locally") + permits(registry, "returned"))
        .isEqualTo(leased);
    assertThat(permits(registry, "expired_unused")).isZero();
  }

  /**
   * Asks for {@code rule} on {@code k} three times a second until a lease is granted: a steady
   * key's, to the end of its window. Returns the admissions the owner decided.
   */
  private long untilASteadyLeaseIsGranted(String rule) {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    long admitted = 0;
    for (int i = 0; i < 10 && statistics.granted() == 0; i++) {
      cluster.clock.advance(Duration.ofMillis(300));
      Decision decision = holder.tryAcquire(rule, k);
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.decidedBy()).isEqualTo(DecidedBy.LIMITER);
      admitted++;
    }
    assertThat(statistics.granted()).as("a steady key's lease").isEqualTo(1);
    assertThat(admitted).as("a second of counting first").isEqualTo(5);
    return admitted;
  }

  /** What it took on key {@code k} of rule {@code bulk} until a lease was renewed ahead. */
  private record FirstRenewal(long byOwner, long granted) {}

  /**
   * Asks for {@code bulk} on {@code k} until a lease is renewed ahead, then waits until that
   * renewal is kept: the admissions the owner decided, and the leases granted by then.
   */
  private FirstRenewal untilTheFirstRenewalIsKept() {
    LeaseHolder.Statistics statistics = holder.leaseStatistics();
    long byOwner = 0;
    long grantedBefore = 0;
    for (int i = 0; i < 2_000 && statistics.renewals() == 0; i++) {
      grantedBefore = statistics.granted();
      Decision decision = holder.tryAcquire("bulk", k);
      assertThat(decision.allowed()).isTrue();
      byOwner += decision.decidedBy() == DecidedBy.LIMITER ? 1 : 0;
    }
    assertThat(statistics.renewals()).as("a renewal was asked for").isEqualTo(1);
    long renewed = grantedBefore + 1; // the call that asked was a lease answer: it brought none
    awaitUntil(() -> statistics.granted() == renewed, "the renewal granted and kept");
    return new FirstRenewal(byOwner, renewed);
  }

  private static double permits(SimpleMeterRegistry registry, String outcome) {
    return registry.get(LeaseMetrics.PERMITS).tag("outcome", outcome).functionCounter().count();
  }

  /** Waits for the background return (a sweep every 10 ms), at most 10 s. */
  private static void awaitUntil(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s: " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
