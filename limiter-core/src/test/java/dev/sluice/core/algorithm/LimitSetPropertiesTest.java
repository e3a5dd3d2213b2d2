package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.test.Seeds;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several limits on one key ({@link LimitSet}) on random pairs and triples of limits of every
 * algorithm and random traces (seeded; see {@link Seeds}), each limit checked against itself
 * deciding alone. The math is in {@code docs/algorithms.md}, "Several limits".
 */
@ExtendWith(Seeds.class)
class LimitSetPropertiesTest {
  private static final int CASES = 150;

  /**
   * A set admits a request iff every limit, deciding on its own state alone, admits it; after every
   * request each limit's state is bit for bit the state that limit has when fed only what the set
   * counted (the admitted requests, plus the denied ones under {@code countDenied}); and the answer
   * reports the binding limit: when admitted the fewest permits left and the longest waits, when
   * denied the longest retryAfter of any limit.
   */
  @Test
  void randomSets_admitIffEveryLimitAdmits_andEachLimitCountsExactlyWhatTheSetCounted() {
    Seeds.run(
        "limit set decides as its limits",
        CASES,
        seed -> {
          Random random = new Random(seed);
          Policy policy =
              Permissiveness.randomSet(random, 2 + random.nextInt(2), random.nextBoolean());
          LimiterAlgorithm set = LimiterAlgorithm.of(policy);
          List<LimiterAlgorithm> limits = new ArrayList<>();
          List<long[]> alone = new ArrayList<>();
          for (Limit limit : policy.limits()) {
            LimiterAlgorithm one = LimiterAlgorithm.of(limit, policy.countDenied());
            limits.add(one);
            alone.add(one.newState());
          }
          long[] state = set.newState();
          for (Request request : Permissiveness.randomTrace(random, policy, set.capacity(), 300)) {
            long now = request.nowNanos();
            long permits = request.permits();
            boolean every = true;
            long longestRetry = 0;
            for (int i = 0; i < limits.size(); i++) {
              Decision own = limits.get(i).apply(alone.get(i).clone(), now, permits);
              every &= own.allowed();
              longestRetry = Math.max(longestRetry, own.retryAfterNanos());
            }
            Decision decision = set.apply(state, now, permits);
            String what = policy + " at " + request;
            assertThat(decision.allowed())
                .as("admitted iff every limit admits: " + what)
                .isEqualTo(every);

            List<Decision> after = new ArrayList<>();
            for (int i = 0; i < limits.size(); i++) {
              if (decision.allowed() || policy.countDenied()) {
                limits.get(i).apply(alone.get(i), now, permits);
              }
              after.add(limits.get(i).apply(alone.get(i).clone(), now, 0));
            }
            List<long[]> parts = Permissiveness.split(state);
            for (int i = 0; i < limits.size(); i++) {
              assertThat(parts.get(i))
                  .as("limit %d's state after %s", i, what)
                  .isEqualTo(alone.get(i));
            }

            long fewest = after.stream().mapToLong(Decision::remaining).min().orElseThrow();
            long longestReset =
                after.stream().mapToLong(Decision::resetAfterNanos).max().orElseThrow();
            assertThat(decision.resetAfterNanos())
                .as("resetAfter: " + what)
                .isEqualTo(longestReset);
            if (decision.allowed()) {
              assertThat(decision.remaining()).as("remaining: " + what).isEqualTo(fewest);
              long limit = decision.limit();
              assertThat(after)
                  .as("the binding limit reports: " + what)
                  .anyMatch(peek -> peek.limit() == limit && peek.remaining() == fewest);
            } else if (!policy.countDenied()) {
              assertThat(decision.retryAfterNanos())
                  .as("retryAfter: " + what)
                  .isEqualTo(longestRetry);
            }
          }
        });
  }

  /**
   * Whatever the set answers is honest about the next request: after waiting {@code retryAfter} the
   * same request is admitted and 1 ns earlier it is not; right after any answer, a request for
   * {@code remaining} permits is admitted and one for {@code remaining + 1} is not; after {@code
   * resetAfter} every limit is full, and 1 ns earlier one is not. With and without {@code
   * countDenied}.
   */
  @Test
  void randomSets_retryAfterRemainingAndResetAfter_areExact() {
    Seeds.run(
        "limit set answers exactly",
        CASES,
        seed -> {
          Random random = new Random(seed);
          Policy policy =
              Permissiveness.randomSet(random, 2 + random.nextInt(2), random.nextBoolean());
          LimiterAlgorithm set = LimiterAlgorithm.of(policy);
          LimiterAlgorithm plain = LimiterAlgorithm.of(new Policy(policy.limits(), false, false));
          long capacity = set.capacity();
          long[] state = set.newState();
          for (Request request : Permissiveness.randomTrace(random, policy, capacity, 300)) {
            long now = request.nowNanos();
            Decision decision = set.apply(state, now, request.permits());
            String what = policy + " at " + request + ": " + decision;
            if (!decision.allowed()) {
              long retry = decision.retryAfterNanos();
              assertThat(retry).as("retryAfter of a denial: " + what).isPositive();
              assertThat(plain.apply(state.clone(), now + retry, request.permits()).allowed())
                  .as("admitted after retryAfter: " + what)
                  .isTrue();
              assertThat(plain.apply(state.clone(), now + retry - 1, request.permits()).allowed())
                  .as("denied 1 ns before retryAfter: " + what)
                  .isFalse();
            }
            long remaining = decision.remaining();
            assertThat(remaining).isBetween(0L, capacity);
            if (remaining > 0) {
              assertThat(plain.apply(state.clone(), now, remaining).allowed())
                  .as("a request for remaining is admitted: " + what)
                  .isTrue();
            }
            if (remaining < capacity) {
              assertThat(plain.apply(state.clone(), now, remaining + 1).allowed())
                  .as("a request for remaining + 1 is denied: " + what)
                  .isFalse();
            }
            long reset = decision.resetAfterNanos();
            assertThat(everyLimitFull(policy, state, now + reset))
                .as("full after resetAfter: " + what)
                .isTrue();
            if (reset > 0) {
              assertThat(everyLimitFull(policy, state, now + reset - 1))
                  .as("not full 1 ns before resetAfter: " + what)
                  .isFalse();
            }
          }
        });
  }

  /**
   * Without {@code countDenied}, {@code n} requests for one permit admit exactly {@code min(n,
   * remaining)} of them, all {@code n} iff one request for {@code n} is admitted, and then leave
   * exactly the state of that one request: where every limit has the property, so does the set.
   */
  @Test
  void randomSets_acquireN_isNTimesAcquireOne() {
    Seeds.run(
        "limit set acquire(n)",
        CASES,
        seed -> {
          Random random = new Random(seed);
          Policy policy = Permissiveness.randomSet(random, 2 + random.nextInt(2), false);
          LimiterAlgorithm set = LimiterAlgorithm.of(policy);
          long[] state = set.newState();
          for (Request request : Permissiveness.randomTrace(random, policy, set.capacity(), 200)) {
            long now = request.nowNanos();
            long n = 1 + (long) (random.nextDouble() * set.capacity());
            long remaining = set.apply(state.clone(), now, 0).remaining();
            long[] together = state.clone();
            long[] oneByOne = state.clone();
            Decision all = set.apply(together, now, n);
            long admittedSingly = 0;
            for (long i = 0; i < n; i++) {
              admittedSingly += set.apply(oneByOne, now, 1).allowed() ? 1 : 0;
            }
            assertThat(admittedSingly)
                .as(policy + " at " + request)
                .isEqualTo(Math.min(n, remaining));
            assertThat(all.allowed()).isEqualTo(admittedSingly == n);
            if (all.allowed()) {
              assertThat(oneByOne).as("n singles vs one n").isEqualTo(together);
            }
            set.apply(state, now, request.permits());
          }
        });
  }

  /** The capacity is the smallest limit's; asking for more is an error naming {@code cost}. */
  @Test
  void randomSets_capacityIsTheSmallestLimits_andMoreIsAnError() {
    Seeds.run(
        "limit set capacity",
        CASES,
        seed -> {
          Random random = new Random(seed);
          Policy policy =
              Permissiveness.randomSet(random, 2 + random.nextInt(2), random.nextBoolean());
          LimiterAlgorithm set = LimiterAlgorithm.of(policy);
          long smallest =
              policy.limits().stream()
                  .mapToLong(limit -> LimiterAlgorithm.of(limit, false).capacity())
                  .min()
                  .orElseThrow();
          assertThat(set.capacity()).isEqualTo(smallest);
          long[] state = set.newState();
          long now = 1_763_700_000_000_000_000L;
          assertThat(set.apply(state, now, smallest).allowed()).isTrue();
          assertThatThrownBy(() -> set.apply(state, now, smallest + 1))
              .isInstanceOf(InvalidPolicyException.class)
              .hasMessageContaining("capacity");
          assertThatThrownBy(() -> set.release(state, now, smallest + 1))
              .isInstanceOf(InvalidPolicyException.class);
        });
  }

  /** Whether every limit of the set is back to its full capacity at {@code at}. */
  private static boolean everyLimitFull(Policy policy, long[] state, long at) {
    List<long[]> parts = Permissiveness.split(state);
    for (int i = 0; i < parts.size(); i++) {
      LimiterAlgorithm one = LimiterAlgorithm.of(policy.limits().get(i), false);
      if (one.apply(parts.get(i).clone(), at, 0).remaining() != one.capacity()) {
        return false;
      }
    }
    return true;
  }
}
