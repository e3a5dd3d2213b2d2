package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class SlidingBucketsTest {

  @Test
  void apply_fourPerMinuteSixBuckets_oldestPartialBucketCountsWhole() {
    Timeline key = new Timeline(policy(4, Duration.ofSeconds(60), 6)); // b = 10 s
    key.at("5s").take(2);
    key.at("25s").take();
    Decision fourth = key.at("45s").take();
    assertThat(fourth.remaining()).isZero();

    // (4 s, 64 s] overlaps buckets [0,10) .. [60,70); bucket 0 counts whole though its permits
    // (at 5 s) are only just inside the window.
    Decision denied = key.at("64s").take();
    assertThat(denied.allowed()).isFalse();
    // Bucket 0 leaves at 10 s + 60 s - 1 ns.
    assertThat(denied.retryAfterNanos()).isEqualTo(seconds(6) - 1);
    assertThat(key.atNanos(seconds(70) - 2).take().allowed()).isFalse();
    Decision allowed = key.atNanos(seconds(70) - 1).take();
    assertThat(allowed.allowed()).isTrue();
    assertThat(allowed.remaining()).isEqualTo(1);
  }

  @Test
  void apply_exactLogWouldAllow_bucketsDeny_neverTheOtherWay() {
    Timeline buckets = new Timeline(policy(1, Duration.ofSeconds(60), 6));
    Timeline log =
        new Timeline(
            Policy.builder()
                .algorithm(Algorithm.SLIDING_LOG)
                .limit(1)
                .window(Duration.ofSeconds(60))
                .build());
    buckets.at("5s").take();
    log.at("5s").take();
    assertThat(log.at("65s").take().allowed()).isTrue(); // 5 s has left (5, 65]
    assertThat(buckets.at("65s").take().allowed()).isFalse(); // bucket [0,10) has not
  }

  @Test
  void apply_resetAfter_isWhenTheNewestNonEmptyBucketLeaves() {
    Timeline key = new Timeline(policy(10, Duration.ofSeconds(60), 6));
    key.at("5s").take();
    Decision decision = key.at("33s").take();
    assertThat(decision.resetAfterNanos()).isEqualTo(seconds(40 + 60) - 1 - seconds(33));
  }

  @Test
  void apply_windowNotDivisibleByBuckets_roundsBucketsUp() {
    // 1 s in 7 buckets: b = 142,857,143 ns; still at most 8 buckets overlap a window.
    Timeline key = new Timeline(policy(7, Duration.ofSeconds(1), 7));
    for (int i = 0; i < 7; i++) {
      assertThat(key.atNanos(i * 142_857_143L).take().allowed()).isTrue();
    }
    Decision denied = key.atNanos(7 * 142_857_143L).take();
    assertThat(denied.allowed()).isFalse();
    long leaves = 142_857_143L + seconds(1) - 1;
    assertThat(denied.retryAfterNanos()).isEqualTo(leaves - 7 * 142_857_143L);
  }

  @Test
  void fit_bucketCountChanged_movesCountsWithoutLettingThemLeaveEarly() {
    Timeline key = new Timeline(policy(3, Duration.ofSeconds(60), 6)); // b = 10 s
    key.at("15s").take(3); // bucket [10,20)
    LimiterAlgorithm finer = LimiterAlgorithm.of(policy(3, Duration.ofSeconds(60), 60)); // 1 s
    long[] fitted = finer.fit(key.state);
    Decision denied = finer.apply(fitted, seconds(30), 1);
    assertThat(denied.allowed()).isFalse();
    // The three permits moved to [19,20): they leave at 20 s + 60 s - 1 ns, not earlier.
    assertThat(denied.retryAfterNanos()).isEqualTo(seconds(80) - 1 - seconds(30));
  }

  /**
   * The running sum changes how a decision is computed, not what it is: on random traces (bursts,
   * idle gaps, several permits, peeks, countDenied, a clock that sometimes steps back) every
   * decision equals the first implementation's, which summed every bucket, and the stored sum is
   * always the sum of the ring.
   */
  @Test
  void apply_randomTraces_decidesExactlyAsSummingEveryBucket() {
    Seeds.run(
        "sliding_buckets running sum vs summing every bucket",
        60,
        seed -> {
          Random random = new Random(seed);
          Policy policy =
              AlgorithmPropertiesTest.randomPolicy(
                  random, Algorithm.SLIDING_BUCKETS, random.nextBoolean());
          LimiterAlgorithm current = LimiterAlgorithm.of(policy);
          LimiterAlgorithm reference = new SlidingBucketsV1(policy);
          long[] state = current.newState();
          long[] referenceState = reference.newState();
          for (Request request : trace(random, policy, 400)) {
            Decision expected =
                reference.apply(referenceState, request.nowNanos(), request.permits());
            assertThat(current.apply(state, request.nowNanos(), request.permits()))
                .as("%s at %d", policy, request.nowNanos())
                .isEqualTo(expected);
            assertRunningSum(state);
          }
        });
  }

  /** A random trace with some peeks and, one request in ten, a clock up to a window behind. */
  private static List<Request> trace(Random random, Policy policy, int length) {
    List<Request> trace = new ArrayList<>();
    for (Request request :
        AlgorithmPropertiesTest.randomTrace(random, policy, policy.limit(), length)) {
      long skew = random.nextInt(10) == 0 ? (long) (random.nextDouble() * policy.windowNanos()) : 0;
      long permits = random.nextInt(10) == 0 ? 0 : request.permits();
      trace.add(new Request(request.nowNanos() - skew, permits));
    }
    return trace;
  }

  /** Word 3 is the saturated sum of the counters (words 4 on). */
  private static void assertRunningSum(long[] state) {
    long sum = 0;
    for (int i = 4; i < state.length; i++) {
      sum = NanoMath.saturatedAdd(sum, state[i]);
    }
    assertThat(state[3]).as("running sum of %s", Arrays.toString(state)).isEqualTo(sum);
  }

  @Test
  void releaseAdmittedAt_bucketStillInTheRing_takesThePermitsOffIt() {
    Timeline key = new Timeline(policy(2, Duration.ofSeconds(10), 1)); // b = 10 s, ring of 2
    long admittedAt = key.at("1s").nowNanos();
    key.take();
    key.at("15s").take();
    Decision released = key.algorithm.release(key.state, key.at("16s").nowNanos(), 1, admittedAt);
    assertThat(released.remaining()).isEqualTo(1);
  }

  @Test
  void releaseAdmittedAt_bucketThatLeftTheRing_freesNothing() {
    Timeline key = new Timeline(policy(2, Duration.ofSeconds(10), 1)); // b = 10 s, ring of 2
    long admittedAt = key.at("1s").nowNanos();
    key.take();
    key.at("25s").take(); // the ring now holds buckets [10, 20) and [20, 30)
    Decision released = key.algorithm.release(key.state, key.at("26s").nowNanos(), 1, admittedAt);
    // The 1 s admission no longer counts; the 25 s permit is someone else's.
    assertThat(released.remaining()).isEqualTo(1);
    assertThat(key.take(2).allowed()).isFalse();
  }

  static Policy policy(long limit, Duration window, int buckets) {
    return Policy.builder()
        .algorithm(Algorithm.SLIDING_BUCKETS)
        .limit(limit)
        .window(window)
        .buckets(buckets)
        .build();
  }
}
