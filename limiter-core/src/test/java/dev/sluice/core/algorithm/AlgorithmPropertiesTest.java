package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.test.RateAlgorithms;
import dev.sluice.core.test.Seeds;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invariants every algorithm keeps on random traces (seeded; see {@link Seeds}). Times start near
 * today's epoch nanoseconds so the big-number paths run too.
 */
@ExtendWith(Seeds.class)
class AlgorithmPropertiesTest {
  private static final long ORIGIN = 1_763_700_000_000_000_000L; // November 2025, in ns
  private static final int CASES = 40;

  /** A random policy for {@code algorithm}, across the whole range of sane shapes. */
  static Policy randomPolicy(Random random, Algorithm algorithm, boolean countDenied) {
    Duration[] windows = {
      Duration.ofMillis(1),
      Duration.ofMillis(10),
      Duration.ofSeconds(1),
      Duration.ofSeconds(60),
      Duration.ofMillis(1 + random.nextInt(3_600_000)),
    };
    Duration window = windows[random.nextInt(windows.length)];
    long[] limits = {1, 2, 3, 7, 10, 64, 1 + random.nextInt(200)};
    long limit = limits[random.nextInt(limits.length)];
    Policy.Builder builder =
        Policy.builder().algorithm(algorithm).limit(limit).window(window).countDenied(countDenied);
    if (algorithm == Algorithm.SLIDING_BUCKETS) {
      long maxBuckets = Math.min(60, window.toMillis());
      builder.buckets(1 + random.nextInt((int) maxBuckets));
    }
    if (algorithm.hasBurst() && random.nextBoolean()) {
      long minBurst = algorithm == Algorithm.TOKEN_BUCKET ? 1 : 0;
      builder.burst(minBurst + random.nextInt((int) (2 * limit + 1)));
    }
    return builder.build();
  }

  /** One request of a trace: at {@code offset} after the origin, for {@code permits}. */
  record Request(long nowNanos, long permits) {}

  /**
   * A trace that mixes steady arrivals near the rate, bursts at one instant, long idle gaps (more
   * than two windows) and requests for several permits at once.
   */
  static List<Request> randomTrace(Random random, Policy policy, long capacity, int length) {
    long windowNanos = policy.windowNanos();
    long meanGap = Math.max(1, windowNanos / policy.limit());
    double pace = new double[] {0.1, 0.5, 1.0, 2.0}[random.nextInt(4)];
    List<Request> trace = new ArrayList<>();
    long t = ORIGIN + (long) (random.nextDouble() * windowNanos);
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(100);
      if (kind < 15) {
        // same instant: a burst
      } else if (kind < 17) {
        t += 2 * windowNanos + random.nextInt(1000);
      } else if (kind < 20) {
        t += 1 + random.nextInt(3);
      } else {
        t += (long) (-Math.log(1 - random.nextDouble()) * meanGap * pace);
      }
      long permits = random.nextInt(100) < 80 ? 1 : 1 + (long) (random.nextDouble() * capacity);
      trace.add(new Request(t, Math.min(permits, capacity)));
    }
    return trace;
  }

  /**
   * On random traces every algorithm keeps its bound ({@link #assertBound}), never reports a
   * negative remaining, and its delays are exact: retryAfter is enough and 1 ns less is not,
   * resetAfter reaches full capacity and 1 ns less does not.
   */
  @Test
  void everyAlgorithm_randomTraces_boundHoldsAndDelaysAreTight() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName(),
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy = randomPolicy(random, algorithm, random.nextInt(4) == 0);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            replayChecked(policy, randomTrace(random, policy, limiter.capacity(), 600));
          });
    }
  }

  /**
   * A store may forget a state once {@code untilFreshNanos} has passed (the grid's TTL and the
   * local sweep rely on it): from then on it decides every request exactly as a fresh state, so
   * forgetting it hands out no budget that was not already back. Checked after every request of
   * random traces, at the instant itself and later, for a peek, one permit and the capacity.
   */
  @Test
  void everyAlgorithm_afterUntilFresh_decidesAsAFreshState() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName() + " untilFresh",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy = randomPolicy(random, algorithm, random.nextInt(4) == 0);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            long[] state = limiter.newState();
            for (Request request : randomTrace(random, policy, limiter.capacity(), 200)) {
              limiter.apply(state, request.nowNanos, request.permits);
              long untilFresh = limiter.untilFreshNanos(state, request.nowNanos);
              assertThat(untilFresh).as("untilFresh").isNotNegative();
              long later = (long) (random.nextDouble() * policy.windowNanos());
              for (long at : new long[] {untilFresh, untilFresh + later}) {
                long when = request.nowNanos + at;
                for (long permits : new long[] {0, 1, limiter.capacity()}) {
                  assertThat(limiter.apply(state.clone(), when, permits))
                      .as(
                          "%d permits %d ns after a state said fresh in %d ns",
                          permits, at, untilFresh)
                      .isEqualTo(limiter.apply(limiter.newState(), when, permits));
                }
              }
            }
          });
    }
  }

  /**
   * The right invariant for each algorithm:
   *
   * <ul>
   *   <li>sliding_log, sliding_buckets: at most {@code L} in every trailing window {@code (t - W,
   *       t]};
   *   <li>fixed_window and sliding_window: at most {@code L} in every epoch-aligned window
   *       (sliding_window's estimate is approximate across windows, never within one);
   *   <li>gcra, leaky_bucket, token_bucket: at most {@code slots + (b - a) · L / W} in every closed
   *       interval {@code [a, b]}: the burst plus the sustained rate.
   * </ul>
   */
  static void assertBound(Policy policy, LimiterAlgorithm limiter, List<Request> admitted) {
    assertBound(policy, limiter, admitted, 0);
  }

  /**
   * {@link #assertBound(Policy, LimiterAlgorithm, List)}, where the rate algorithms' admission
   * instants may each be up to {@code slackNanos} late: a delay rounded up to whole nanoseconds
   * puts two admissions up to 1 ns closer together than the exact schedule spaced them.
   */
  static void assertBound(
      Policy policy, LimiterAlgorithm limiter, List<Request> admitted, long slackNanos) {
    long windowNanos = policy.windowNanos();
    long limit = policy.limit();
    switch (policy.algorithm()) {
      case SLIDING_LOG, SLIDING_BUCKETS -> {
        int first = 0;
        long inWindow = 0;
        for (Request last : admitted) {
          inWindow += last.permits;
          while (admitted.get(first).nowNanos <= last.nowNanos - windowNanos) {
            inWindow -= admitted.get(first++).permits;
          }
          assertThat(inWindow)
              .as("permits in (%d - W, %d]", last.nowNanos, last.nowNanos)
              .isLessThanOrEqualTo(limit);
        }
      }
      case FIXED_WINDOW, SLIDING_WINDOW -> {
        long windowStart = Long.MIN_VALUE;
        long inWindow = 0;
        for (Request request : admitted) {
          long start = NanoMath.windowStart(request.nowNanos, windowNanos);
          if (start != windowStart) {
            windowStart = start;
            inWindow = 0;
          }
          inWindow += request.permits;
          assertThat(inWindow).as("permits in window %d", start).isLessThanOrEqualTo(limit);
        }
      }
      case GCRA, LEAKY_BUCKET, TOKEN_BUCKET -> {
        // P(i..j) <= slots + (t_j - t_i)·L/W  <=>  (S_j - slots)·W - t_j·L <= S_(i-1)·W - t_i·L,
        // so keep the minimum of the right side over i <= j.
        BigInteger w = BigInteger.valueOf(windowNanos);
        BigInteger l = BigInteger.valueOf(limit);
        BigInteger slots = BigInteger.valueOf(limiter.capacity());
        BigInteger before = BigInteger.ZERO; // S_(i-1)
        BigInteger minRight = null;
        for (Request request : admitted) {
          BigInteger t = BigInteger.valueOf(request.nowNanos);
          BigInteger right =
              before.multiply(w).subtract(t.subtract(BigInteger.valueOf(slackNanos)).multiply(l));
          minRight = minRight == null || right.compareTo(minRight) < 0 ? right : minRight;
          before = before.add(BigInteger.valueOf(request.permits));
          BigInteger left = before.subtract(slots).multiply(w).subtract(t.multiply(l));
          assertThat(left)
              .as("burst + rate bound at %d", request.nowNanos)
              .isLessThanOrEqualTo(minRight);
        }
      }
    }
  }

  /**
   * Replays {@code trace} on a fresh key and checks every decision: remaining within [0, capacity];
   * a denial's retryAfter is positive, enough, and 1 ns less is not; resetAfter reaches full
   * capacity and 1 ns less does not; and at the end the algorithm's bound holds.
   */
  static void replayChecked(Policy policy, List<Request> trace) {
    replayChecked(policy, LimiterAlgorithm.of(policy).newState(), trace);
  }

  /** {@link #replayChecked(Policy, List)} from a given (fitted) state. */
  static void replayChecked(Policy policy, long[] initialState, List<Request> trace) {
    replayChecked(policy, initialState, trace, true);
  }

  private static void replayChecked(
      Policy policy, long[] initialState, List<Request> trace, boolean checkBound) {
    LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
    long[] state = initialState;
    List<Request> admitted = new ArrayList<>();
    for (Request request : trace) {
      long now = request.nowNanos;
      Decision decision = limiter.apply(state, now, request.permits);
      assertThat(decision.remaining()).isBetween(0L, limiter.capacity());
      if (!decision.allowed()) {
        long retry = decision.retryAfterNanos();
        assertThat(retry).as("retryAfter of a denial").isPositive();
        assertThat(limiter.apply(state.clone(), now + retry, request.permits).allowed())
            .as("allowed after waiting retryAfter %d", retry)
            .isTrue();
        assertThat(limiter.apply(state.clone(), now + retry - 1, request.permits).allowed())
            .as("denied 1 ns before retryAfter %d", retry)
            .isFalse();
      } else {
        assertThat(decision.retryAfterNanos()).isZero();
        if (request.permits > 0) {
          admitted.add(request);
        }
      }
      long reset = decision.resetAfterNanos();
      assertThat(reset).isNotNegative();
      assertThat(limiter.apply(state.clone(), now + reset, 0).remaining())
          .as("full after resetAfter %d", reset)
          .isEqualTo(limiter.capacity());
      if (reset > 0) {
        assertThat(limiter.apply(state.clone(), now + reset - 1, 0).remaining())
            .as("not yet full 1 ns before resetAfter %d", reset)
            .isLessThan(limiter.capacity());
      }
    }
    if (checkBound) {
      assertBound(policy, limiter, admitted);
    }
  }

  /**
   * After a failover the owning member's clock may be behind the one that wrote the state. No
   * algorithm forgets counts then, and every delay still holds from the clock the caller sees.
   */
  @Test
  void everyAlgorithm_clockStepsBack_delaysStillExactFromTheRealNow() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName() + " clock back",
          CASES / 2,
          seed -> {
            Random random = new Random(seed);
            Policy policy = randomPolicy(random, algorithm, random.nextBoolean());
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            List<Request> trace = new ArrayList<>();
            for (Request request : randomTrace(random, policy, limiter.capacity(), 300)) {
              long skew =
                  random.nextInt(10) == 0
                      ? (long) (random.nextDouble() * 2 * policy.windowNanos())
                      : 0;
              trace.add(new Request(request.nowNanos - skew, request.permits));
            }
            // The bound is a statement about time order, which a backward clock breaks; the
            // per-decision checks (exact delays, remaining in range) must all hold.
            replayChecked(policy, limiter.newState(), trace, false);
          });
    }
  }

  /**
   * A rule may change its algorithm, limit, window or buckets while keys hold state: whatever was
   * stored, {@code fit} gives a state the new policy decides on correctly.
   */
  @Test
  void everyAlgorithm_fitOfAnyOtherPolicysState_givesAStateThatKeepsEveryInvariant() {
    for (Algorithm from : RateAlgorithms.values()) {
      for (Algorithm to : RateAlgorithms.values()) {
        Seeds.run(
            from.wireName() + " -> " + to.wireName(),
            3,
            seed -> {
              Random random = new Random(seed);
              Policy before = randomPolicy(random, from, random.nextBoolean());
              Policy after = randomPolicy(random, to, random.nextBoolean());
              LimiterAlgorithm old = LimiterAlgorithm.of(before);
              long[] state = old.newState();
              List<Request> history = randomTrace(random, before, old.capacity(), 100);
              for (Request request : history) {
                old.apply(state, request.nowNanos, request.permits);
              }
              LimiterAlgorithm current = LimiterAlgorithm.of(after);
              long[] fitted = current.fit(state);
              long last = history.get(history.size() - 1).nowNanos;
              List<Request> trace = new ArrayList<>();
              for (Request request : randomTrace(random, after, current.capacity(), 100)) {
                trace.add(new Request(request.nowNanos - ORIGIN + last, request.permits));
              }
              replayChecked(after, fitted, trace);
            });
      }
    }
  }

  @Test
  void everyAlgorithm_acquireN_isNTimesAcquireOne_andRemainingIsExact() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm + " acquire(n)",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy = randomPolicy(random, algorithm, false);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            long[] state = limiter.newState();
            for (Request request : randomTrace(random, policy, limiter.capacity(), 300)) {
              long n = 1 + (long) (random.nextDouble() * limiter.capacity());
              long[] together = state.clone();
              long[] oneByOne = state.clone();
              long remaining = limiter.apply(state.clone(), request.nowNanos, 0).remaining();
              Decision all = limiter.apply(together, request.nowNanos, n);
              long admittedSingly = 0;
              for (long i = 0; i < n; i++) {
                if (limiter.apply(oneByOne, request.nowNanos, 1).allowed()) {
                  admittedSingly++;
                }
              }
              // n singles take exactly what the peek said was left, and all n iff acquire(n) did.
              assertThat(admittedSingly).isEqualTo(Math.min(n, remaining));
              assertThat(all.allowed()).isEqualTo(admittedSingly == n);
              if (all.allowed()) {
                assertThat(oneByOne).as("state after n singles vs one n").isEqualTo(together);
              }
              limiter.apply(state, request.nowNanos, request.permits); // move the key on
            }
          });
    }
  }

  @Test
  void everyAlgorithm_peeksAndPlainDenials_changeNothing() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm + " peek",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy = randomPolicy(random, algorithm, false);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            long[] state = limiter.newState();
            for (Request request : randomTrace(random, policy, limiter.capacity(), 300)) {
              long[] before = state.clone();
              Decision peek = limiter.apply(state, request.nowNanos, 0);
              assertThat(state).as("after a peek").isEqualTo(before);
              Decision decision = limiter.apply(state, request.nowNanos, request.permits);
              if (!decision.allowed()) {
                assertThat(state).as("after a denial").isEqualTo(before);
              } else {
                assertThat(decision.remaining()).isEqualTo(peek.remaining() - request.permits);
              }
              assertThat(limiter.fit(state)).as("fit under the same policy").isSameAs(state);
            }
          });
    }
  }

  @Test
  void everyAlgorithm_countDenied_neverAdmitsWhatThePlainPolicyDenies() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm + " countDenied",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy plain = randomPolicy(random, algorithm, false);
            Policy penalised = new Policy(plain.limits(), false, true);
            LimiterAlgorithm a = LimiterAlgorithm.of(plain);
            LimiterAlgorithm b = LimiterAlgorithm.of(penalised);
            long[] plainState = a.newState();
            long[] penalisedState = b.newState();
            int plainAdmitted = 0;
            int penalisedAdmitted = 0;
            for (Request request : randomTrace(random, plain, a.capacity(), 400)) {
              boolean plainAllowed =
                  a.apply(plainState, request.nowNanos, request.permits).allowed();
              boolean penalisedAllowed =
                  b.apply(penalisedState, request.nowNanos, request.permits).allowed();
              if (penalisedAllowed) {
                assertThat(plainAllowed).as("plain allows what the penalised allows").isTrue();
                penalisedAdmitted++;
              }
              plainAdmitted += plainAllowed ? 1 : 0;
            }
            assertThat(penalisedAdmitted).isLessThanOrEqualTo(plainAdmitted);
          });
    }
  }

  @Test
  void everyAlgorithm_countDenied_aClientThatKeepsHammeringStaysLimited() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Policy.Builder builder =
          Policy.builder().algorithm(algorithm).limit(10).window(Duration.ofSeconds(10));
      LimiterAlgorithm plain = LimiterAlgorithm.of(builder.build());
      LimiterAlgorithm penalised = LimiterAlgorithm.of(builder.countDenied(true).build());
      long[] plainState = plain.newState();
      long[] penalisedState = penalised.newState();
      int plainAdmitted = 0;
      int penalisedAdmitted = 0;
      // Two requests per second for 60 s: twice the rate of 1 per second.
      for (long t = 0; t < 60_000; t += 500) {
        long now = ORIGIN + t * 1_000_000L;
        plainAdmitted += plain.apply(plainState, now, 1).allowed() ? 1 : 0;
        penalisedAdmitted += penalised.apply(penalisedState, now, 1).allowed() ? 1 : 0;
      }
      if (algorithm == Algorithm.FIXED_WINDOW) {
        // A fixed window forgets everything at its boundary, so a penalty cannot outlast the
        // window it was earned in, where the client was already denied: no difference.
        assertThat(penalisedAdmitted).as(algorithm.wireName()).isEqualTo(plainAdmitted);
      } else {
        assertThat(penalisedAdmitted).as(algorithm.wireName()).isLessThan(plainAdmitted);
      }
    }
  }

  @Test
  void slidingBuckets_admitsNoMoreThanSlidingLog_onTheSameTraceOfSinglePermits() {
    Seeds.run(
        "sliding_buckets <= sliding_log",
        CASES * 3,
        seed -> {
          Random random = new Random(seed);
          Policy buckets = randomPolicy(random, Algorithm.SLIDING_BUCKETS, random.nextBoolean());
          Policy log =
              Policy.builder()
                  .algorithm(Algorithm.SLIDING_LOG)
                  .limit(buckets.limit())
                  .window(buckets.window())
                  .countDenied(buckets.countDenied())
                  .build();
          LimiterAlgorithm b = LimiterAlgorithm.of(buckets);
          LimiterAlgorithm l = LimiterAlgorithm.of(log);
          long[] bucketState = b.newState();
          long[] logState = l.newState();
          int byBuckets = 0;
          int byLog = 0;
          for (Request request : randomTrace(random, buckets, 1, 800)) {
            byBuckets += b.apply(bucketState, request.nowNanos, 1).allowed() ? 1 : 0;
            byLog += l.apply(logState, request.nowNanos, 1).allowed() ? 1 : 0;
            assertThat(byBuckets).as("admitted so far").isLessThanOrEqualTo(byLog);
          }
        });
  }
}
