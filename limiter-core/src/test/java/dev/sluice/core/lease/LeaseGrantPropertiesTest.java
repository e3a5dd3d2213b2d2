package dev.sluice.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.test.RateAlgorithms;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A lease, per algorithm and for several limits at once: a grant, local answers from it, and the
 * return of what was left, against the same requests decided one by one at the owner. The lease's
 * side must never be more permissive: each local answer is one the owner would have admitted at its
 * instant, and afterwards every request the leased state admits the serial state admits too, with
 * no more remaining (docs/algorithms.md, "Leases").
 *
 * <p>Each case builds a random history on one state, then forks it: the <em>leased</em> copy gets
 * the grant ({@link KeyDecision} decides an acquire that asks for a lease, as a holder sends it)
 * and, later, the return; the <em>serial</em> copy gets the same request and then one acquire per
 * local answer, at the instant the holder gave it. Other callers' requests on the same key go to
 * the leased copy, during the lease and after it; each one it admits is then decided on the serial
 * copy too, which must admit it. So the serial copy is the owner alone deciding exactly the
 * requests the leased system admitted, one by one: if it admits them all, the lease admitted
 * nothing the owner would not have.
 */
@ExtendWith(Seeds.class)
class LeaseGrantPropertiesTest {
  private static final long ORIGIN = 1_763_700_000_000_000_000L;
  private static final int CASES = 400;

  @Test
  void everyAlgorithm_grantAnswersAndReturn_areNeverLaxerThanServingEachRequestAtTheOwner() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName(),
          CASES,
          seed -> check(new Random(seed), policy(new Random(seed), algorithm), false));
    }
  }

  @Test
  void severalLimits_grantAnswersAndReturn_areNeverLaxerThanServingEachRequestAtTheOwner() {
    Seeds.run(
        "several limits",
        CASES,
        seed -> {
          Random random = new Random(seed);
          List<Limit> limits = new ArrayList<>();
          int count = 2 + random.nextInt(2);
          for (int i = 0; i < count; i++) {
            Algorithm algorithm =
                RateAlgorithms.values()[random.nextInt(RateAlgorithms.values().length)];
            Limit limit = policy(random, algorithm).only();
            if (!limits.contains(limit)) {
              limits.add(limit);
            }
          }
          check(random, new Policy(limits, false, random.nextInt(4) == 0), false);
        });
  }

  /**
   * Keys driven past their limit for a few windows before a hot key's ask, so that most grants are
   * paced ({@link PacedLease}); the holder then uses each permit at or soon after its instant.
   */
  @Test
  void slidingWindowAtItsLimit_pacedGrantAnswersAndReturn_areNeverLaxerThanTheOwner() {
    int[] paced = new int[1];
    Seeds.run(
        "sliding_window at its limit",
        CASES,
        seed -> {
          Random random = new Random(seed);
          Policy shape = policy(random, Algorithm.SLIDING_WINDOW);
          if (check(random, shape, true)) {
            paced[0]++;
          }
        });
    assertThat(paced[0]).as("cases granted a paced lease").isGreaterThan(CASES / 4);
  }

  @Test
  void keyAtItsLimit_isGrantedAPacedLease_ofThePermitsThatFreeUpWithinItsLifetime() {
    CompiledPolicy policy = CompiledPolicy.of(hundredPerSecond(Algorithm.SLIDING_WINDOW));
    long at = HALF_PAST_THE_NEXT_SECOND;
    StoredState full = atItsLimitHalfPastTheNextSecond(policy);
    KeyDecision.Result result =
        decideOne(policy, full, at, KeyOp.acquireWithLease(1, 1_000, LeaseAsk.SHORT_OR_PACED));
    assertThat(result.outcome().decision(0).allowed()).isFalse();
    PacedLease paced = result.outcome().pacedLease(0);
    assertThat(paced).isNotNull();
    // The next one fits once floor(100 × (1 s - e) / 1 s) <= 49, that is from 1 ns after 500 ms;
    // then one every 10 ms, for the 100 ms a lease may last: 10 of them, the last at 590 ms.
    assertThat(paced.firstAtNanos() - at).isEqualTo(1);
    assertThat(paced.spacingNanos()).isEqualTo(10_000_000L);
    assertThat(paced.endsAtNanos() - at).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(paced.permits()).isEqualTo(10);
    Decision after =
        decideOne(policy, result.written(), at + Duration.ofMillis(100).toNanos(), KeyOp.peek())
            .outcome()
            .decision(0);
    assertThat(after.remaining()).as("the lease's permits are counted").isZero();
  }

  @Test
  void keyAtItsLimit_isGrantedNoPacedLease_whenItsPolicyCountsDenials_orTheAskIsAPlainShortOne() {
    Policy penalised =
        Policy.builder().limit(100).window(Duration.ofSeconds(1)).countDenied(true).build();
    Policy plain = hundredPerSecond(Algorithm.SLIDING_WINDOW);
    for (Policy shape : List.of(penalised, plain)) {
      CompiledPolicy policy = CompiledPolicy.of(shape);
      long lifetime = shape == plain ? Policy.MAX_LEASE_NANOS : LeaseAsk.SHORT_OR_PACED;
      KeyDecision.Result result =
          decideOne(
              policy,
              atItsLimitHalfPastTheNextSecond(policy),
              HALF_PAST_THE_NEXT_SECOND,
              KeyOp.acquireWithLease(1, 1_000, lifetime));
      assertThat(result.outcome().leased(0)).as("%s", shape).isZero();
      assertThat(result.outcome().pacedLease(0)).isNull();
    }
  }

  @Test
  void leakyBucket_isNeverLeased() {
    CompiledPolicy policy = CompiledPolicy.of(hundredPerSecond(Algorithm.LEAKY_BUCKET));
    KeyDecision.Result result =
        decideOne(policy, null, ORIGIN, KeyOp.acquireWithLease(1, 50, Policy.MAX_LEASE_NANOS));
    assertThat(result.outcome().leased(0)).isZero();
    assertThat(result.outcome().decision(0).allowed()).isTrue();
  }

  @Test
  void leasesOff_isNeverLeased() {
    CompiledPolicy policy =
        CompiledPolicy.of(
            Policy.builder()
                .limit(100)
                .window(Duration.ofSeconds(1))
                .leases(Policy.Leases.OFF)
                .build());
    KeyDecision.Result result =
        decideOne(policy, null, ORIGIN, KeyOp.acquireWithLease(1, 50, Policy.MAX_LEASE_NANOS));
    assertThat(result.outcome().leased(0)).isZero();
  }

  @Test
  void grant_takesAtMostHalfOfWhatIsLeft_andEndsWithinTheLongestLease() {
    CompiledPolicy policy =
        CompiledPolicy.of(Policy.builder().limit(100).window(Duration.ofSeconds(10)).build());
    KeyDecision.Result result =
        decideOne(
            policy,
            null,
            ORIGIN,
            KeyOp.acquireWithLease(1, 1_000, Duration.ofSeconds(5).toNanos()));
    KeyOutcome outcome = result.outcome();
    // 99 left after the request: at most 49 leased, and the request reports them as its own.
    assertThat(outcome.leased(0)).isEqualTo(49);
    assertThat(outcome.decision(0).remaining()).isEqualTo(99);
    assertThat(outcome.leaseEndsAtNanos(0) - ORIGIN).isEqualTo(Policy.MAX_LEASE_NANOS);
    Decision after =
        decideOne(policy, result.written(), ORIGIN, KeyOp.peek()).outcome().decision(0);
    assertThat(after.remaining()).isEqualTo(50);
  }

  @Test
  void askToTheWindowEnd_takesAtMostAQuarterOfWhatIsLeft_untilTheWindowEnds() {
    CompiledPolicy policy =
        CompiledPolicy.of(Policy.builder().limit(100).window(Duration.ofSeconds(10)).build());
    long at = ORIGIN + Duration.ofSeconds(3).toNanos(); // 7 s before the window ends
    KeyDecision.Result result =
        decideOne(policy, null, at, KeyOp.acquireWithLease(1, 1_000, LeaseAsk.UNTIL_WINDOW_END));
    KeyOutcome outcome = result.outcome();
    // 99 left after the request: at most 24 leased, until the window's end, 7 s on; an ask that
    // knew what it asked for is not marked.
    assertThat(outcome.leased(0)).isEqualTo(24);
    assertThat(outcome.leaseEndsAtNanos(0) - at).isEqualTo(Duration.ofSeconds(7).toNanos());
    assertThat(outcome.leaseToWindowEnd(0)).isFalse();
    Decision after = decideOne(policy, result.written(), at, KeyOp.peek()).outcome().decision(0);
    assertThat(after.remaining()).isEqualTo(75);
  }

  @Test
  void warmKeysAsk_isALeaseToTheWindowEnd_whereThereIsRoom_andShortOrPacedWhereNot() {
    long at = ORIGIN + Duration.ofSeconds(3).toNanos();
    KeyOp warmAsk = KeyOp.acquireWithLease(1, 30, LeaseAsk.WINDOW_SHORT_OR_PACED);

    // A window algorithm with room: a quarter of what is left at most, to the window's end, marked.
    CompiledPolicy tenSeconds =
        CompiledPolicy.of(Policy.builder().limit(100).window(Duration.ofSeconds(10)).build());
    KeyOutcome roomy = decideOne(tenSeconds, null, at, warmAsk).outcome();
    assertThat(roomy.leased(0)).isEqualTo(24);
    assertThat(roomy.leaseEndsAtNanos(0) - at).isEqualTo(Duration.ofSeconds(7).toNanos());
    assertThat(roomy.leaseToWindowEnd(0)).isTrue();

    // A token bucket has no window to lease to: a short lease of the ask's tenth of a second
    // (30 a second: 3), unmarked.
    KeyOutcome bucket =
        decideOne(CompiledPolicy.of(hundredPerSecond(Algorithm.TOKEN_BUCKET)), null, at, warmAsk)
            .outcome();
    assertThat(bucket.leased(0)).isEqualTo(3);
    assertThat(bucket.leaseEndsAtNanos(0) - at).isEqualTo(Policy.MAX_LEASE_NANOS);
    assertThat(bucket.leaseToWindowEnd(0)).isFalse();

    // A sliding window at its limit: paced, as a burst's ask would be, with the same instants.
    CompiledPolicy hundred = CompiledPolicy.of(hundredPerSecond(Algorithm.SLIDING_WINDOW));
    StoredState full = atItsLimitHalfPastTheNextSecond(hundred);
    KeyOutcome atLimit = decideOne(hundred, full, HALF_PAST_THE_NEXT_SECOND, warmAsk).outcome();
    KeyOutcome burstAsk =
        decideOne(
                hundred,
                full,
                HALF_PAST_THE_NEXT_SECOND,
                KeyOp.acquireWithLease(1, 3, LeaseAsk.SHORT_OR_PACED))
            .outcome();
    assertThat(atLimit.leaseToWindowEnd(0)).isFalse();
    assertThat(atLimit.pacedLease(0)).isNotNull().isEqualTo(burstAsk.pacedLease(0));
  }

  @Test
  void regionsAsk_isALeaseToTheWindowEnd_elsePacedToIt_halfOfWhatFreesUp() {
    KeyOp regionAsk = KeyOp.acquireWithLease(1, 1_000, LeaseAsk.REGION_BUDGET);

    // With room: a quarter of what is left at most, to the window's end, marked (as a warm key's).
    CompiledPolicy tenSeconds =
        CompiledPolicy.of(Policy.builder().limit(100).window(Duration.ofSeconds(10)).build());
    long at = ORIGIN + Duration.ofSeconds(3).toNanos();
    KeyOutcome roomy = decideOne(tenSeconds, null, at, regionAsk).outcome();
    assertThat(roomy.leased(0)).isEqualTo(24);
    assertThat(roomy.leaseToWindowEnd(0)).isTrue();
    assertThat(roomy.pacedLease(0)).isNull();

    // At its limit half-way through the window, 50 permits free up before it ends, one every
    // 10 ms from 500 ms: the first region is paced half of them, 500 ms to 740 ms, its lease
    // lasting to the window's end (not the 100 ms of a short one).
    CompiledPolicy hundred = CompiledPolicy.of(hundredPerSecond(Algorithm.SLIDING_WINDOW));
    KeyDecision.Result first =
        decideOne(
            hundred,
            atItsLimitHalfPastTheNextSecond(hundred),
            HALF_PAST_THE_NEXT_SECOND,
            regionAsk);
    assertThat(first.outcome().decision(0).allowed()).isFalse();
    PacedLease firstLease = first.outcome().pacedLease(0);
    assertThat(firstLease).isNotNull();
    assertThat(firstLease.permits()).isEqualTo(25);
    assertThat(firstLease.firstAtNanos() - HALF_PAST_THE_NEXT_SECOND).isEqualTo(1);
    assertThat(firstLease.spacingNanos()).isEqualTo(10_000_000L);
    assertThat(firstLease.endsAtNanos() - HALF_PAST_THE_NEXT_SECOND)
        .isEqualTo(Duration.ofMillis(500).toNanos());

    // The next region, asking at once, finds the other 25 from 750 ms and is paced 13 of them.
    PacedLease second =
        decideOne(hundred, first.written(), HALF_PAST_THE_NEXT_SECOND, regionAsk)
            .outcome()
            .pacedLease(0);
    assertThat(second).isNotNull();
    assertThat(second.permits()).isEqualTo(13);
    assertThat(second.firstAtNanos() - HALF_PAST_THE_NEXT_SECOND)
        .isEqualTo(Duration.ofMillis(250).toNanos() + 1);
    assertThat(second.endsAtNanos()).isEqualTo(firstLease.endsAtNanos());
  }

  @Test
  void askToTheWindowEnd_isGrantedNothing_whereALeaseCostsMoreTheLongerItLasts() {
    Policy tokenBucket = hundredPerSecond(Algorithm.TOKEN_BUCKET);
    Policy log = hundredPerSecond(Algorithm.SLIDING_LOG);
    Policy twoWindows =
        new Policy(
            List.of(Limit.of(100, Duration.ofSeconds(1)), Limit.of(1_000, Duration.ofMinutes(1))),
            false,
            false);
    for (Policy shape : List.of(tokenBucket, log, twoWindows)) {
      KeyDecision.Result result =
          decideOne(
              CompiledPolicy.of(shape),
              null,
              ORIGIN,
              KeyOp.acquireWithLease(1, 10, LeaseAsk.UNTIL_WINDOW_END));
      assertThat(result.outcome().leased(0)).as("%s", shape).isZero();
      assertThat(result.outcome().decision(0).allowed()).isTrue();
    }
  }

  private static final long HALF_PAST_THE_NEXT_SECOND = ORIGIN + Duration.ofMillis(1_500).toNanos();

  /**
   * A state of a 100-a-second policy with 100 admitted in the second from {@link #ORIGIN} and 50 at
   * half past the next: the estimate is then floor(100 × 0.5) + 50 = 100, the limit, and one more
   * permit frees up every 10 ms as the second before weighs less.
   */
  private static StoredState atItsLimitHalfPastTheNextSecond(CompiledPolicy policy) {
    StoredState state = null;
    for (int i = 0; i < 100; i++) {
      state = decideOne(policy, state, ORIGIN + i * 10_000_000L, KeyOp.acquire(1)).written();
    }
    return decideOne(policy, state, HALF_PAST_THE_NEXT_SECOND, KeyOp.acquire(50)).written();
  }

  /** {@code op} decided alone on {@code stored} at {@code at}. */
  private static KeyDecision.Result decideOne(
      CompiledPolicy policy, @Nullable StoredState stored, long at, KeyOp op) {
    return KeyDecision.decide(policy, stored, fingerprint -> null, at, new KeyOp[] {op});
  }

  private static Policy hundredPerSecond(Algorithm algorithm) {
    return Policy.builder().algorithm(algorithm).limit(100).window(Duration.ofSeconds(1)).build();
  }

  /** A random one-limit policy of {@code algorithm} whose longest lease is not zero. */
  static Policy policy(Random random, Algorithm algorithm) {
    long[] windowsMillis = {10, 100, 1_000, 60_000, 1 + random.nextInt(3_600_000)};
    long window = windowsMillis[random.nextInt(windowsMillis.length)];
    long[] limits = {1, 2, 3, 10, 64, 1 + random.nextInt(500)};
    long limit = limits[random.nextInt(limits.length)];
    Policy.Builder builder =
        Policy.builder()
            .algorithm(algorithm)
            .limit(limit)
            .window(Duration.ofMillis(window))
            .countDenied(random.nextInt(4) == 0);
    if (algorithm == Algorithm.SLIDING_BUCKETS) {
      builder.buckets(1 + random.nextInt((int) Math.min(60, window)));
    }
    if (algorithm.hasBurst() && random.nextBoolean()) {
      long minBurst = algorithm == Algorithm.TOKEN_BUCKET ? 1 : 0;
      builder.burst(minBurst + random.nextInt((int) (2 * limit + 1)));
    }
    return builder.build();
  }

  /**
   * One case; with {@code atLimit}, a history that keeps the key at its limit for a few windows and
   * a hot key's ask. Returns whether the grant was a paced lease.
   */
  private static boolean check(Random random, Policy shape, boolean atLimit) {
    CompiledPolicy policy = CompiledPolicy.of(shape);
    long window = shortestWindow(shape);
    long capacity = policy.capacity();

    // A random history, so that the grant meets windows, buckets and logs part full.
    Fork fork = new Fork(policy);
    long now = ORIGIN + (long) (random.nextDouble() * window);
    // Faster than the rate (a drained bucket, a full window) to ten times slower (a full bucket).
    double pace =
        atLimit
            ? new double[] {0.3, 0.6, 0.9}[random.nextInt(3)]
            : new double[] {0.3, 0.7, 1, 3, 10}[random.nextInt(5)];
    int history =
        atLimit
            ? (int) (shape.limits().get(0).limit() * (2 + random.nextInt(3)) / pace)
            : random.nextInt(3 * (int) Math.min(capacity, 50) + 1);
    for (int i = 0; i < history; i++) {
      now += gap(random, shape, pace);
      fork.serial(now, KeyOp.acquire(1 + random.nextInt((int) Math.min(capacity, 3))));
    }
    fork.leased = fork.serialState;

    // The grant: a request that asks for a lease, as a holder sends it.
    long permits = 1 + random.nextInt((int) Math.min(capacity, 3));
    long wanted = 1 + random.nextInt(2_000);
    // A short lease, one to the end of the window (a steady key's ask), a short one that may be
    // paced (a key in a burst: paced where it has nothing to spare), either (a warm key's), or one
    // to the end of the window that may be paced to it (a region's budget).
    int ask = atLimit ? new int[] {1, 3, 4}[random.nextInt(3)] : random.nextInt(5);
    long lifetime =
        switch (ask) {
          case 0 -> LeaseAsk.UNTIL_WINDOW_END;
          case 1 -> LeaseAsk.SHORT_OR_PACED;
          case 3 -> LeaseAsk.WINDOW_SHORT_OR_PACED;
          case 4 -> LeaseAsk.REGION_BUDGET;
          default -> 1 + (long) (random.nextDouble() * Policy.MAX_LEASE_NANOS);
        };
    long grantAt = now + gap(random, shape, pace);
    if (random.nextInt(3) == 0) {
      // Just before a window (or bucket) boundary, where a lease that outlived it would show.
      long edge =
          window / (shape.limits().get(0).buckets() > 1 ? shape.limits().get(0).buckets() : 1);
      long boundary = grantAt - Math.floorMod(grantAt, edge) + edge;
      long span = Math.min(lifetime, window);
      grantAt = Math.max(grantAt, boundary - 1 - (long) (random.nextDouble() * span));
    }
    KeyOutcome grant = fork.lease(grantAt, KeyOp.acquireWithLease(permits, wanted, lifetime));
    if (ask != 3 && ask != 4) {
      assertThat(grant.leaseToWindowEnd(0)).as("marked only for the ask that needs it").isFalse();
    }
    boolean toWindowEnd = ask == 0 || grant.leaseToWindowEnd(0);
    Decision serialAnswer = fork.serial(grantAt, KeyOp.acquire(permits));
    assertThat(grant.decision(0).allowed()).isEqualTo(serialAnswer.allowed());
    long leased = grant.leased(0);
    if (leased == 0) {
      return false;
    }
    long endsAt = grant.leaseEndsAtNanos(0);
    assertThat(leased).isLessThanOrEqualTo(wanted);
    assertThat(endsAt).isGreaterThan(grantAt);
    assertThat(endsAt - grantAt).isLessThanOrEqualTo(lifetime);
    PacedLease paced = grant.pacedLease(0);
    if (toWindowEnd) {
      assertThat(leased)
          .isLessThanOrEqualTo(grant.decision(0).remaining() / KeyDecision.WINDOW_LEASE_SHARE);
      assertThat(endsAt - grantAt).isLessThanOrEqualTo(policy.algorithm().windowLeaseNanos());
    } else if (ask == 4) {
      // A region's paced lease lasts to the end of its window.
      assertThat(paced).isNotNull();
      assertThat(endsAt - grantAt).isLessThanOrEqualTo(window);
    } else {
      assertThat(endsAt - grantAt).isLessThanOrEqualTo(shape.maxLeaseNanos());
    }

    // Local answers, and other callers' requests at the owner, until the lease ends. The answers
    // spend all of the lease, some of it or none; spread over it, or bunched at its end (where a
    // lease charged too early would show).
    long toUse =
        switch (random.nextInt(4)) {
          case 0, 1 -> leased;
          case 2 -> (long) (random.nextDouble() * leased);
          default -> 0;
        };
    long[] instants =
        paced == null
            ? spreadOver(random, grantAt, endsAt, (int) Math.min(toUse, 2_000))
            : pacedInstants(random, paced, grantAt, (int) Math.min(toUse, 2_000));
    long used = 0;
    long last = grantAt;
    for (long t : instants) {
      last = t;
      if (random.nextInt(8) == 0) {
        long other = 1 + random.nextInt((int) Math.min(capacity, 2));
        if (fork.lease(t, KeyOp.acquire(other)).decision(0).allowed()) {
          assertThat(fork.serial(t, KeyOp.acquire(other)).allowed())
              .as("another caller admitted at %d only because of the lease", t - grantAt)
              .isTrue();
        }
      }
      used++;
      assertThat(fork.serial(t, KeyOp.acquire(1)).allowed())
          .as(
              "local answer %d of %d, %d ns into the lease, is one the owner admits",
              used, leased, t - grantAt)
          .isTrue();
    }

    // The return: when the holder's sweep finds it ended, or early (a newer lease replaced it).
    long returnAt =
        random.nextBoolean()
            ? endsAt + (long) (random.nextDouble() * 20_000_000L)
            : last + (long) (random.nextDouble() * Math.max(1, endsAt - last));
    if (used < leased) {
      fork.lease(returnAt, KeyOp.returnLease(leased - used, grantAt, endsAt - grantAt));
    }

    // From then on the leased state is never laxer: probes over the next windows.
    long probe = Math.max(returnAt, last);
    for (int i = 0; i < 16; i++) {
      // Close together first (a rate algorithm's difference shows before its bucket refills),
      // then across the next windows.
      probe += (long) (random.nextDouble() * (i < 8 ? window / 50 : window / 3));
      long q = 1 + random.nextInt((int) Math.min(capacity, 4));
      Decision leasedPeek = fork.peekLeased(probe);
      Decision serialPeek = fork.peekSerial(probe);
      assertThat(leasedPeek.remaining())
          .as("remaining %d ns after the grant", probe - grantAt)
          .isLessThanOrEqualTo(serialPeek.remaining());
      if (fork.lease(probe, KeyOp.acquire(q)).decision(0).allowed()) {
        assertThat(fork.serial(probe, KeyOp.acquire(q)).allowed())
            .as(
                "%d permits %d ns after the grant admitted only on the leased side",
                q, probe - grantAt)
            .isTrue();
      }
    }
    return paced != null;
  }

  /** {@code count} instants in the lease, spread over it or bunched at its end, sorted. */
  private static long[] spreadOver(Random random, long grantAt, long endsAt, int count) {
    boolean late = random.nextInt(3) != 0;
    long[] instants = new long[count];
    for (int i = 0; i < count; i++) {
      double at = late ? 1 - Math.pow(random.nextDouble(), 4) : random.nextDouble();
      instants[i] = grantAt + Math.min(endsAt - grantAt - 1, (long) (at * (endsAt - grantAt)));
    }
    Arrays.sort(instants);
    return instants;
  }

  /**
   * Up to {@code count} instants at which a holder uses a paced lease's permits, one each: the
   * {@code j}-th at or after its permit's instant, often right at it (where an instant too early
   * would show), never after the lease's end.
   */
  private static long[] pacedInstants(Random random, PacedLease paced, long grantAt, int count) {
    assertThat(paced.firstAtNanos()).isGreaterThanOrEqualTo(grantAt);
    List<Long> instants = new ArrayList<>();
    long t = grantAt;
    for (int j = 1; j <= count; j++) {
      long usable = paced.usableAtNanos(j);
      long slack = random.nextInt(3) == 0 ? 0 : (long) (random.nextDouble() * paced.spacingNanos());
      t = Math.max(t, usable) + slack;
      if (t >= paced.endsAtNanos()) {
        break;
      }
      instants.add(t);
    }
    return instants.stream().mapToLong(Long::longValue).toArray();
  }

  private static long shortestWindow(Policy shape) {
    return shape.limits().stream().mapToLong(Limit::windowNanos).min().orElseThrow();
  }

  private static long gap(Random random, Policy shape, double pace) {
    Limit first = shape.limits().get(0);
    long meanGap = Math.max(1, first.windowNanos() / first.limit());
    return random.nextInt(10) == 0
        ? 0
        : (long) (-Math.log(1 - random.nextDouble()) * meanGap * pace);
  }

  /** One key's state, forked: the leased side and the serial side. */
  private static final class Fork {
    final CompiledPolicy policy;
    @Nullable StoredState serialState;
    @Nullable StoredState leased;

    Fork(CompiledPolicy policy) {
      this.policy = policy;
    }

    Decision serial(long now, KeyOp op) {
      KeyDecision.Result result = decide(serialState, now, op);
      if (result.written() != null) {
        serialState = result.written();
      }
      return result.outcome().decision(0);
    }

    KeyOutcome lease(long now, KeyOp op) {
      KeyDecision.Result result = decide(leased, now, op);
      if (result.written() != null) {
        leased = result.written();
      }
      return result.outcome();
    }

    Decision peekLeased(long now) {
      return decide(leased, now, KeyOp.peek()).outcome().decision(0);
    }

    Decision peekSerial(long now) {
      return decide(serialState, now, KeyOp.peek()).outcome().decision(0);
    }

    private KeyDecision.Result decide(@Nullable StoredState state, long now, KeyOp op) {
      return KeyDecision.decide(policy, state, fingerprint -> null, now, new KeyOp[] {op});
    }
  }
}
