package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Permissiveness.assertDecidesAlike;
import static dev.sluice.core.algorithm.Permissiveness.assertNoMorePermissive;
import static dev.sluice.core.algorithm.Permissiveness.decidesAlike;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.algorithm.Permissiveness.Event;
import dev.sluice.core.algorithm.Permissiveness.History;
import dev.sluice.core.algorithm.Permissiveness.Subject;
import dev.sluice.core.test.Seeds;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What giving permits back may and may not do, on random policies and traces (seeded; see {@link
 * Seeds}). The reference throughout is the key's history with the released permits taken out of it,
 * every other request counted as it was: {@link Permissiveness.Forced#replay}. The math is in
 * {@code docs/algorithms.md}, "Release".
 */
@ExtendWith(Seeds.class)
class ReleasePropertiesTest {
  private static final int CASES = 30;

  private static final List<Algorithm> WINDOWS =
      List.of(
          Algorithm.FIXED_WINDOW,
          Algorithm.SLIDING_WINDOW,
          Algorithm.SLIDING_LOG,
          Algorithm.SLIDING_BUCKETS);

  private static final List<Algorithm> RATES =
      List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.LEAKY_BUCKET);

  /**
   * The stamped release ({@code release(state, now, p, admittedAt)}) of an admission is never more
   * permissive than the key's history without that admission (every other request counted as it
   * was), for every algorithm and for sets of limits, with and without {@code countDenied}, however
   * late it comes. A prompt one (nothing counted since the admission; for a rate algorithm also at
   * the same instant) is exactly that history.
   */
  @Test
  void stampedRelease_everyAlgorithm_neverMorePermissiveThanForgettingTheAdmission() {
    for (String kind : Permissiveness.kinds()) {
      for (boolean countDenied : new boolean[] {false, true}) {
        Seeds.run(
            "stamped release, " + kind + (countDenied ? ", countDenied" : ""),
            CASES,
            seed -> {
              Random random = new Random(seed);
              Subject subject = Subject.of(Permissiveness.policy(random, kind, countDenied));
              LimiterAlgorithm algorithm = subject.algorithm();
              List<Request> trace =
                  Permissiveness.randomTrace(random, subject.policy(), subject.capacity(), 150);
              long[] state = algorithm.newState();
              History history = new History(subject.forced());
              List<Event> counted = history.events();
              for (int i = 0; i < trace.size(); i++) {
                Request request = trace.get(i);
                Decision decision = algorithm.apply(state, request.nowNanos(), request.permits());
                if (decision.allowed() || countDenied) {
                  history.add(new Event(request.nowNanos(), request.permits(), decision.allowed()));
                }
                int index = pickAdmission(random, counted);
                if (random.nextInt(3) != 0 || index < 0) {
                  continue;
                }
                Event admission = counted.get(index);
                long now = releaseInstant(random, trace, i);
                long permits = 1 + (long) (random.nextDouble() * admission.permits());
                long[] released = state.clone();
                algorithm.release(released, now, permits, admission.at());
                long[] reference = history.without(index, permits);
                String what =
                    String.format(
                        "%s: release %d of %d admitted at +%d, at +%d (%d counted after it)",
                        subject.policy(),
                        permits,
                        admission.permits(),
                        admission.at() - trace.get(0).nowNanos(),
                        now - trace.get(0).nowNanos(),
                        counted.size() - 1 - index);
                assertNoMorePermissive(subject, released, reference, now, random, what);
                boolean prompt =
                    index == counted.size() - 1
                        && (subject.onlyWindows() || now == admission.at())
                        && !fullPenalisedLog(subject, counted, now);
                if (prompt) {
                  assertDecidesAlike(subject, released, reference, now, random, "prompt " + what);
                }
                // Keep the release as history when it was exact, so that later ones stack on it.
                if (random.nextBoolean()
                    && decidesAlike(subject, released, reference, now, random)) {
                  state = released;
                  history.remove(index, permits);
                }
              }
            });
      }
    }
  }

  /**
   * A plain release on a window algorithm gives back the newest permits the current window counted
   * (fixed and sliding window: the aligned window of now; sliding log: the trailing window; sliding
   * buckets: the buckets overlapping it), at most what that window counted, never more: the state
   * is exactly the history without them.
   */
  @Test
  void plainRelease_windowAlgorithms_isTheHistoryWithoutTheNewestPermitsOfTheCurrentWindow() {
    for (Algorithm algorithm : WINDOWS) {
      for (boolean countDenied : new boolean[] {false, true}) {
        Seeds.run(
            "plain release, " + algorithm.wireName() + (countDenied ? ", countDenied" : ""),
            CASES,
            seed -> {
              Random random = new Random(seed);
              Policy policy = AlgorithmPropertiesTest.randomPolicy(random, algorithm, countDenied);
              Subject subject = Subject.of(policy);
              LimiterAlgorithm limiter = subject.algorithm();
              List<Request> trace =
                  AlgorithmPropertiesTest.randomTrace(random, policy, limiter.capacity(), 150);
              long[] state = limiter.newState();
              List<Event> counted = new ArrayList<>();
              for (int i = 0; i < trace.size(); i++) {
                Request request = trace.get(i);
                Decision decision = limiter.apply(state, request.nowNanos(), request.permits());
                if (decision.allowed() || countDenied) {
                  counted.add(new Event(request.nowNanos(), request.permits(), decision.allowed()));
                }
                if (random.nextInt(3) != 0) {
                  continue;
                }
                long now = releaseInstant(random, trace, i);
                long permits = 1 + (long) (random.nextDouble() * limiter.capacity());
                long[] released = state.clone();
                Decision answer = limiter.release(released, now, permits);
                assertThat(answer.remaining()).isBetween(0L, limiter.capacity());
                assertThat(answer).isEqualTo(limiter.apply(released.clone(), now, 0));
                long from = currentWindowFrom(policy.only(), now);
                List<Event> without = withoutNewest(counted, permits, from);
                long[] reference = subject.forced().replay(without);
                String what =
                    String.format(
                        "%s: release %d at +%d (current window from +%d)",
                        policy,
                        permits,
                        now - trace.get(0).nowNanos(),
                        from - trace.get(0).nowNanos());
                if (fullPenalisedLog(subject, counted, now)) {
                  // Penalties may have pushed live entries out: the entries move instead.
                  assertNoMorePermissive(subject, released, reference, now, random, what);
                } else {
                  assertDecidesAlike(subject, released, reference, now, random, what);
                  if (random.nextBoolean()) {
                    state = released;
                    counted = without;
                  }
                }
              }
            });
      }
    }
  }

  /**
   * A plain release on a rate algorithm puts the permits back in the bucket and never beyond its
   * capacity: the debt drops by {@code p·T} to no less than zero, so {@code remaining} becomes
   * {@code min(capacity, remaining + p)} (exactly, while the debt is within the tolerance).
   */
  @Test
  void plainRelease_rateAlgorithms_putsThePermitsBackNeverBeyondCapacity() {
    for (Algorithm algorithm : RATES) {
      for (boolean countDenied : new boolean[] {false, true}) {
        Seeds.run(
            "plain release, " + algorithm.wireName() + (countDenied ? ", countDenied" : ""),
            CASES,
            seed -> {
              Random random = new Random(seed);
              Policy policy = AlgorithmPropertiesTest.randomPolicy(random, algorithm, countDenied);
              Subject subject = Subject.of(policy);
              LimiterAlgorithm limiter = subject.algorithm();
              List<Request> trace =
                  AlgorithmPropertiesTest.randomTrace(random, policy, limiter.capacity(), 150);
              long[] state = limiter.newState();
              for (int i = 0; i < trace.size(); i++) {
                Request request = trace.get(i);
                limiter.apply(state, request.nowNanos(), request.permits());
                if (random.nextInt(3) != 0) {
                  continue;
                }
                long now = releaseInstant(random, trace, i);
                long permits = 1 + (long) (random.nextDouble() * limiter.capacity());
                long before = limiter.apply(state.clone(), now, 0).remaining();
                long[] released = state.clone();
                Decision answer = limiter.release(released, now, permits);
                assertThat(answer).isEqualTo(limiter.apply(released.clone(), now, 0));
                assertThat(answer.remaining()).isLessThanOrEqualTo(limiter.capacity());
                assertThat(answer.remaining())
                    .as("remaining after giving %d back to %d", permits, before)
                    .isLessThanOrEqualTo(Math.min(limiter.capacity(), before + permits));
                if (before > 0) {
                  assertThat(answer.remaining())
                      .isEqualTo(Math.min(limiter.capacity(), before + permits));
                }
                long[] expected = lessDebt(policy.only(), state, now, permits);
                assertDecidesAlike(
                    subject,
                    released,
                    expected,
                    now,
                    random,
                    policy + ": release " + permits + " at +" + (now - trace.get(0).nowNanos()));
                if (random.nextBoolean()) {
                  state = released;
                }
              }
            });
      }
    }
  }

  /**
   * Giving back, at the same instant, what a request was just admitted undoes it exactly, on every
   * algorithm and set of limits: the key decides as if the request had never come.
   */
  @Test
  void plainRelease_rightAfterAnAdmission_isItsExactUndo() {
    for (String kind : Permissiveness.kinds()) {
      Seeds.run(
          "prompt plain release, " + kind,
          CASES,
          seed -> {
            Random random = new Random(seed);
            Subject subject = Subject.of(Permissiveness.policy(random, kind, random.nextBoolean()));
            LimiterAlgorithm algorithm = subject.algorithm();
            long[] state = algorithm.newState();
            List<Event> counted = new ArrayList<>();
            for (Request request :
                Permissiveness.randomTrace(random, subject.policy(), subject.capacity(), 150)) {
              long now = request.nowNanos();
              long[] before = state.clone();
              boolean allowed = algorithm.apply(state, now, request.permits()).allowed();
              if (allowed || subject.policy().countDenied()) {
                counted.add(new Event(now, request.permits(), allowed));
              }
              if (allowed && random.nextInt(3) == 0) {
                long[] undone = state.clone();
                algorithm.release(undone, now, request.permits());
                String what = subject.policy() + ": undo " + request;
                if (fullPenalisedLog(subject, counted, now)) {
                  assertNoMorePermissive(subject, undone, before, now, random, what);
                } else {
                  assertDecidesAlike(subject, undone, before, now, random, what);
                }
              }
            }
          });
    }
  }

  /**
   * Why the reference keeps every other decision as it was. Replaying the trace without the
   * admission and deciding every request afresh is not an invariant any release could keep: the
   * admission may be the very reason a later request was denied, and that denial stands.
   *
   * <pre>
   *   fixed_window 2 per minute
   *   t=0s  A ×1 allowed          count 1
   *   t=1s  B ×2 denied           (1 + 2 > 2: A is in the way)
   *   t=2s  release A (at 0s)     count 0: a request for 2 is admitted now
   *   re-deciding without A: B ×2 allowed, count 2, and a request for 2 is denied
   * </pre>
   */
  @Test
  void stampedRelease_afterADenialTheAdmissionCaused_isMorePermissiveThanReDecidingTheTrace() {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.FIXED_WINDOW)
            .limit(2)
            .window(java.time.Duration.ofMinutes(1))
            .build();
    LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
    long t0 =
        1_763_700_000_000_000_000L - Math.floorMod(1_763_700_000_000_000_000L, 60_000_000_000L);
    long second = 1_000_000_000L;
    long[] state = limiter.newState();
    assertThat(limiter.apply(state, t0, 1).allowed()).isTrue();
    assertThat(limiter.apply(state, t0 + second, 2).allowed()).isFalse();
    limiter.release(state, t0 + 2 * second, 1, t0);
    assertThat(limiter.apply(state.clone(), t0 + 2 * second, 2).allowed()).isTrue();

    long[] reDecided = limiter.newState();
    assertThat(limiter.apply(reDecided, t0 + second, 2).allowed()).isTrue();
    assertThat(limiter.apply(reDecided.clone(), t0 + 2 * second, 2).allowed()).isFalse();
  }

  /**
   * Whether one of the policy's limits is a sliding log under {@code countDenied} whose ring is
   * full of live entries at {@code now}: there a penalty may have pushed out entries that still
   * count, and a release moves the entries it gives back to the oldest one's instant instead of
   * removing them (see {@link SlidingLog}, "Giving permits back"). Then a release is no more
   * permissive than the history without the permits, but no longer equal to it.
   */
  private static boolean fullPenalisedLog(Subject subject, List<Event> counted, long now) {
    if (!subject.policy().countDenied()) {
      return false;
    }
    for (Limit limit : subject.policy().limits()) {
      if (limit.algorithm() == Algorithm.SLIDING_LOG) {
        Subject log = Subject.of(new Policy(List.of(limit), false, true));
        long[] state = log.forced().replay(counted);
        if (log.plain().apply(state, now, 0).remaining() == 0) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * An admission to give back: the newest one half the time (a prompt return), else one of the last
   * twenty; -1 if none is left.
   */
  private static int pickAdmission(Random random, List<Event> counted) {
    List<Integer> candidates = new ArrayList<>();
    for (int i = counted.size() - 1; i >= 0 && candidates.size() < 20; i--) {
      if (counted.get(i).admitted() && counted.get(i).permits() > 0) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty()) {
      return -1;
    }
    return random.nextBoolean()
        ? candidates.get(0)
        : candidates.get(random.nextInt(candidates.size()));
  }

  /** The instant of the request itself a third of the time, else any time before the next one. */
  private static long releaseInstant(Random random, List<Request> trace, int i) {
    long at = trace.get(i).nowNanos();
    if (random.nextInt(3) == 0 || i + 1 == trace.size()) {
      return at;
    }
    return at + (long) (random.nextDouble() * (trace.get(i + 1).nowNanos() - at));
  }

  /**
   * The first instant whose permits a plain release may give back at {@code now}: the start of the
   * aligned window (fixed, sliding window), just after {@code now - W} (sliding log), the start of
   * the oldest bucket overlapping the trailing window (sliding buckets).
   */
  private static long currentWindowFrom(Limit limit, long now) {
    long windowNanos = limit.windowNanos();
    return switch (limit.algorithm()) {
      case FIXED_WINDOW, SLIDING_WINDOW -> NanoMath.windowStart(now, windowNanos);
      case SLIDING_LOG -> now - windowNanos + 1;
      case SLIDING_BUCKETS -> {
        long bucketNanos = NanoMath.ceilDiv(windowNanos, limit.buckets());
        yield Math.floorDiv(now - windowNanos + 1, bucketNanos) * bucketNanos;
      }
      default -> throw new IllegalArgumentException(limit.algorithm().wireName());
    };
  }

  /** {@code counted} without its newest {@code permits} counted at or after {@code from}. */
  private static List<Event> withoutNewest(List<Event> counted, long permits, long from) {
    List<Event> without = new ArrayList<>(counted);
    long left = permits;
    for (int i = without.size() - 1; i >= 0 && left > 0; i--) {
      Event event = without.get(i);
      if (event.at() < from) {
        break;
      }
      long taken = Math.min(left, event.permits());
      without.set(i, event.less(taken));
      left -= taken;
    }
    return without;
  }

  /**
   * A rate algorithm's state with its debt at {@code now} lowered by {@code permits × T}, to no
   * less than zero, computed independently in units of {@code 1 / L} ns: the debt is {@code (tat -
   * now)·L + fraction}, and {@code p·T} is {@code p·W}.
   */
  private static long[] lessDebt(Limit limit, long[] state, long now, long permits) {
    BigInteger l = BigInteger.valueOf(limit.limit());
    BigInteger debt =
        state[0] < now
            ? BigInteger.ZERO
            : BigInteger.valueOf(state[0])
                .subtract(BigInteger.valueOf(now))
                .multiply(l)
                .add(BigInteger.valueOf(state[1]));
    BigInteger left =
        debt.subtract(BigInteger.valueOf(permits).multiply(BigInteger.valueOf(limit.windowNanos())))
            .max(BigInteger.ZERO);
    BigInteger[] split = left.divideAndRemainder(l);
    return new long[] {now + split[0].longValueExact(), split[1].longValueExact()};
  }
}
