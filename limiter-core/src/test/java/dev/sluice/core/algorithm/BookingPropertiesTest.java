package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.test.RateAlgorithms;
import dev.sluice.core.test.Seeds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bookings ({@link Booking}) on random traces that mix plain requests with requests that may wait
 * (seeded; see {@link Seeds}). Each admission is taken to happen when its caller proceeds, {@code
 * now + delay}: once every wait is served, the admissions keep the rule's bound in every window,
 * exactly as the plain admissions of {@link AlgorithmPropertiesTest} do.
 */
@ExtendWith(Seeds.class)
class BookingPropertiesTest {
  private static final int CASES = 40;

  /**
   * Delays are whole nanoseconds rounded up, so the instant a caller proceeds may be up to 1 ns
   * after the exact instant the schedule admits it, and two such instants up to 1 ns closer than
   * the schedule spaced them: the rate bound is checked with that much slack (a shift of far below
   * one permit at any rate Sluice supports).
   */
  private static final long DELAY_ROUNDING_NANOS = 1;

  /**
   * Plain requests, bookings and (with countDenied) penalties, interleaved: the admissions, placed
   * where their callers proceed, keep every algorithm's bound ({@link
   * AlgorithmPropertiesTest#assertBound}).
   */
  @Test
  void everyAlgorithm_bookingsOnceServed_neverExceedTheRule() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName() + " bookings",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy =
                AlgorithmPropertiesTest.randomPolicy(random, algorithm, random.nextInt(4) == 0);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            List<Request> admitted = replay(random, policy, limiter);
            admitted.sort(Comparator.comparingLong(Request::nowNanos));
            AlgorithmPropertiesTest.assertBound(policy, limiter, admitted, DELAY_ROUNDING_NANOS);
          });
    }
  }

  /**
   * The same for two limits of random algorithms: each limit's bound holds. Leaky buckets are left
   * out here: in a set, a leaky bucket's shaping delay comes on top of the instant the other limits
   * counted (for plain requests as for bookings), so their bounds hold for that instant, not for
   * when the caller proceeds; the single-limit test above covers the leaky bucket's own bookings.
   */
  @Test
  void severalLimits_bookingsOnceServed_neverExceedAnyLimit() {
    Algorithm[] rates =
        java.util.Arrays.stream(RateAlgorithms.values())
            .filter(a -> a != Algorithm.LEAKY_BUCKET)
            .toArray(Algorithm[]::new);
    Seeds.run(
        "several limits bookings",
        CASES * 3,
        seed -> {
          Random random = new Random(seed);
          Policy first =
              AlgorithmPropertiesTest.randomPolicy(
                  random, rates[random.nextInt(rates.length)], false);
          Policy second =
              AlgorithmPropertiesTest.randomPolicy(
                  random, rates[random.nextInt(rates.length)], false);
          if (first.only().equals(second.only())) {
            return;
          }
          Policy both = new Policy(List.of(first.only(), second.only()), false, false);
          LimiterAlgorithm limiter = LimiterAlgorithm.of(both);
          List<Request> admitted = replay(random, both, limiter);
          admitted.sort(Comparator.comparingLong(Request::nowNanos));
          for (Limit limit : both.limits()) {
            Policy one = new Policy(limit);
            AlgorithmPropertiesTest.assertBound(
                one, LimiterAlgorithm.of(one), admitted, DELAY_ROUNDING_NANOS);
          }
        });
  }

  /**
   * A wait succeeds exactly when the rule allows: on a state not booked ahead, a denied request
   * that may wait its own {@code retryAfter} is booked with that delay (a leaky bucket adds its
   * queue's delay), and one that may wait 1 ns less is denied with the state left bit for bit.
   */
  @Test
  void everyAlgorithm_waitOfRetryAfter_isBookedAndOneNanosecondLessIsNot() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName() + " exact waits",
          CASES,
          seed -> {
            Random random = new Random(seed);
            Policy policy = AlgorithmPropertiesTest.randomPolicy(random, algorithm, false);
            LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
            long[] state = limiter.newState();
            for (Request request :
                AlgorithmPropertiesTest.randomTrace(random, policy, limiter.capacity(), 300)) {
              long now = request.nowNanos();
              long permits = request.permits();
              Decision plain = limiter.apply(state.clone(), now, permits);
              if (plain.allowed() || limiter.notBeforeNanos(state) > now || permits == 0) {
                Booking.acquire(limiter, state, now, permits, 0);
                continue;
              }
              long retry = plain.retryAfterNanos();
              long[] before = state.clone();
              Decision short1 = Booking.acquire(limiter, state, now, permits, retry - 1);
              assertThat(short1.allowed()).as("a wait of retryAfter - 1 ns").isFalse();
              assertThat(state).as("nothing booked by a denial").isEqualTo(before);

              Decision booked = Booking.acquire(limiter, state, now, permits, retry);
              assertThat(booked.allowed()).as("a wait of retryAfter %d", retry).isTrue();
              if (algorithm == Algorithm.LEAKY_BUCKET) {
                assertThat(booked.delayNanos()).isGreaterThanOrEqualTo(retry);
              } else {
                assertThat(booked.delayNanos()).isEqualTo(retry);
              }
            }
          });
    }
  }

  /**
   * Replays a random trace where a third of the requests may wait (up to two windows) and returns
   * every admission at the instant its caller proceeds.
   */
  private static List<Request> replay(Random random, Policy policy, LimiterAlgorithm limiter) {
    long[] state = limiter.newState();
    List<Request> admitted = new ArrayList<>();
    long windowNanos = policy.limits().stream().mapToLong(Limit::windowNanos).max().orElseThrow();
    Policy traced = new Policy(policy.limits().get(0));
    for (Request request :
        AlgorithmPropertiesTest.randomTrace(random, traced, limiter.capacity(), 400)) {
      long maxWait =
          random.nextInt(3) == 0 ? (long) (random.nextDouble() * 2 * windowNanos) + 1 : 0;
      Decision decision =
          Booking.acquire(limiter, state, request.nowNanos(), request.permits(), maxWait);
      assertThat(decision.remaining()).isBetween(0L, limiter.capacity());
      if (decision.allowed()) {
        assertThat(decision.retryAfterNanos()).isZero();
        boolean shapes =
            policy.limits().stream().anyMatch(l -> l.algorithm() == Algorithm.LEAKY_BUCKET);
        if (maxWait == 0 && !shapes) {
          assertThat(decision.delayNanos()).as("a plain admission has no wait").isZero();
        }
        if (request.permits() > 0) {
          admitted.add(new Request(request.nowNanos() + decision.delayNanos(), request.permits()));
        }
      } else {
        assertThat(decision.retryAfterNanos()).as("retryAfter of a denial").isPositive();
      }
    }
    return admitted;
  }
}
