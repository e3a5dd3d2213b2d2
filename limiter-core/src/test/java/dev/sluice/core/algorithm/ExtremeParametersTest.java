package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.test.RateAlgorithms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The corners of the policy space: no overflow, no rate rounded to zero, no negative remaining. */
class ExtremeParametersTest {
  private static final long NOW = 1_763_700_000_000_000_000L;
  private static final Duration THIRTY_DAYS = Duration.ofDays(30);
  private static final Duration ONE_MS = Duration.ofMillis(1);

  @Test
  void everyAlgorithm_cornersOfLimitAndWindow_keepEveryInvariant() {
    long[] limits = {1, 2, 1_000, 10_000, 1_000_000, 1_000_000_000};
    Duration[] windows = {ONE_MS, Duration.ofSeconds(1), THIRTY_DAYS};
    for (Algorithm algorithm : RateAlgorithms.values()) {
      for (long limit : limits) {
        for (Duration window : windows) {
          Policy policy;
          try {
            // sub-windows of at least 1 ms: 1 bucket at 1 ms, 60 at 1 s, the maximum at 30 days
            int buckets = window == ONE_MS ? 1 : window == THIRTY_DAYS ? Limit.MAX_BUCKETS : 60;
            Policy.Builder builder =
                Policy.builder().algorithm(algorithm).limit(limit).window(window);
            if (algorithm.hasBuckets()) {
              builder.buckets(buckets);
            }
            policy = builder.build();
          } catch (InvalidPolicyException rejected) {
            // Only the documented refusals: faster than one permit per ns, or a log above its cap.
            assertThat(rejected.field()).isEqualTo("limit");
            assertThat(
                    window.toNanos() < limit
                        || (algorithm == Algorithm.SLIDING_LOG
                            && limit > Limit.SLIDING_LOG_MAX_LIMIT))
                .as("%s %d per %s rejected: %s", algorithm, limit, window, rejected.getMessage())
                .isTrue();
            continue;
          }
          String what = algorithm + " " + limit + " per " + window;
          try {
            AlgorithmPropertiesTest.replayChecked(policy, cornerTrace(policy));
          } catch (AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage(), e);
          }
        }
      }
    }
  }

  /** Single permits at the rate and at ten times it, whole-capacity requests, long idles. */
  private static List<Request> cornerTrace(Policy policy) {
    LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
    long capacity = limiter.capacity();
    long interval = Math.max(1, policy.windowNanos() / policy.limit());
    Random random = new Random(policy.hashCode());
    List<Request> trace = new ArrayList<>();
    long t = NOW;
    trace.add(new Request(t, capacity));
    trace.add(new Request(t, 1));
    for (int i = 0; i < 60; i++) {
      t += random.nextBoolean() ? interval : Math.max(1, interval / 10);
      trace.add(new Request(t, 1));
    }
    trace.add(new Request(t, capacity));
    t += 3 * policy.windowNanos();
    trace.add(new Request(t, capacity));
    trace.add(new Request(t + 1, capacity));
    trace.add(new Request(t + policy.windowNanos() - 1, 1 + capacity / 2));
    return trace;
  }

  /**
   * One million per second, as 10,000 per 10 ms (the same T = 1 µs; a whole second would be two
   * million decisions per algorithm for no more insight; the corner test above runs 1,000,000 per
   * second literally): at twice the rate, exactly the limit or exactly burst plus rate gets in.
   */
  @Test
  void oneMillionPerSecond_admitsExactlyTheRate_onEveryAlgorithmThatAcceptsIt() {
    for (Algorithm algorithm : EnumSet.complementOf(EnumSet.of(Algorithm.SLIDING_LOG))) {
      Policy.Builder builder =
          Policy.builder().algorithm(algorithm).limit(10_000).window(Duration.ofMillis(10));
      if (algorithm.hasBuckets()) {
        builder.buckets(10);
      }
      Policy policy = builder.build();
      LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
      long[] state = limiter.newState();
      long start = NanoMath.windowStart(NOW, policy.windowNanos());
      // Two requests every microsecond for one window: twice the rate.
      long admitted = 0;
      for (long us = 0; us < 10_000; us++) {
        for (int j = 0; j < 2; j++) {
          Decision decision = limiter.apply(state, start + us * 1_000, 1);
          admitted += decision.allowed() ? 1 : 0;
          if (!decision.allowed()) {
            assertThat(decision.retryAfterNanos()).isBetween(1L, policy.windowNanos());
          }
        }
      }
      // A window algorithm admits its limit; a rate algorithm its burst plus the rate
      // (9,999 intervals of 1 µs have elapsed by the last microsecond).
      long expected =
          switch (algorithm) {
            case GCRA, LEAKY_BUCKET, TOKEN_BUCKET -> limiter.capacity() + 9_999;
            default -> 10_000;
          };
      assertThat(admitted).as(algorithm.wireName()).isEqualTo(expected);
    }
  }

  @Test
  void slidingLog_oneMillionPerSecond_isRefusedWithAReason() {
    assertThatThrownBy(
            () ->
                Policy.builder()
                    .algorithm(Algorithm.SLIDING_LOG)
                    .limit(1_000_000)
                    .window(Duration.ofSeconds(1))
                    .build())
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("limit"))
        .hasMessageContaining("sliding_window or sliding_buckets");
  }

  @Test
  void rateAlgorithms_billionPerThirtyDays_intervalIsExactAndWholeBurstDrainsInExactlyThirtyDays() {
    for (Algorithm algorithm : EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET)) {
      Policy policy =
          Policy.builder().algorithm(algorithm).limit(1_000_000_000).window(THIRTY_DAYS).build();
      LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
      long[] state = limiter.newState();
      assertThat(limiter.capacity()).isEqualTo(1_000_000_000);
      Decision all = limiter.apply(state, NOW, 1_000_000_000);
      assertThat(all.allowed()).isTrue();
      assertThat(all.remaining()).isZero();
      assertThat(all.resetAfterNanos()).isEqualTo(THIRTY_DAYS.toNanos());
      Decision next = limiter.apply(state, NOW, 1);
      assertThat(next.retryAfterNanos()).isEqualTo(2_592_000L); // T = 30 d / 1e9, exactly
    }
  }

  @Test
  void rateAlgorithms_onePerThirtyDaysWithHugeBurst_isRefusedNotOverflowed() {
    assertThatThrownBy(
            () ->
                Policy.builder()
                    .algorithm(Algorithm.GCRA)
                    .limit(1)
                    .window(THIRTY_DAYS)
                    .burst(1_000_000_000)
                    .build())
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("burst"))
        .hasMessageContaining("100 years");
    // Just inside the century: 1216 slots of 30 days. The TAT is 100 years ahead and still exact.
    Policy longest =
        Policy.builder().algorithm(Algorithm.GCRA).limit(1).window(THIRTY_DAYS).burst(1215).build();
    LimiterAlgorithm limiter = LimiterAlgorithm.of(longest);
    long[] state = limiter.newState();
    assertThat(limiter.apply(state, NOW, 1216).allowed()).isTrue();
    Decision denied = limiter.apply(state, NOW, 1);
    assertThat(denied.retryAfterNanos()).isEqualTo(THIRTY_DAYS.toNanos());
    assertThat(denied.resetAfterNanos()).isEqualTo(1216 * THIRTY_DAYS.toNanos());
  }

  @Test
  void windowAlgorithms_saturatedPenaltyCounts_neitherOverflowNorGoNegative() {
    Policy sliding =
        Policy.builder().limit(1_000_000_000).window(THIRTY_DAYS).countDenied(true).build();
    LimiterAlgorithm limiter = LimiterAlgorithm.of(sliding);
    long start = NanoMath.windowStart(NOW, THIRTY_DAYS.toNanos());
    long[] state = {start, Long.MAX_VALUE - 3, Long.MAX_VALUE};
    Decision decision = limiter.apply(state, start + 5, 1_000_000_000);
    assertThat(decision.allowed()).isFalse();
    assertThat(decision.remaining()).isZero();
    assertThat(state[1]).isEqualTo(Long.MAX_VALUE); // saturated, not wrapped
    long retry = decision.retryAfterNanos();
    assertThat(retry).isPositive();
    assertThat(limiter.apply(state.clone(), start + 5 + retry, 1_000_000_000).allowed()).isTrue();
    assertThat(limiter.apply(state.clone(), start + 4 + retry, 1_000_000_000).allowed()).isFalse();

    Policy fixed =
        Policy.builder()
            .algorithm(Algorithm.FIXED_WINDOW)
            .limit(1_000_000_000)
            .window(Duration.ofSeconds(1))
            .countDenied(true)
            .build();
    LimiterAlgorithm fixedWindow = LimiterAlgorithm.of(fixed);
    long[] fixedState = {NanoMath.windowStart(NOW, 1_000_000_000L), Long.MAX_VALUE};
    Decision denied = fixedWindow.apply(fixedState, NOW, 1_000_000_000);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.remaining()).isZero();
    assertThat(fixedState[1]).isEqualTo(Long.MAX_VALUE);
  }
}
