package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.millis;
import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The worked examples of {@code docs/algorithms.md}, "Release", as timelines: the plain release
 * ({@code release(p)}) and the exact undo of an admission ({@code release(p, admittedAt)}) on every
 * algorithm.
 */
class ReleaseExamplesTest {

  @Test
  void fixedWindow_fivePerMinute() {
    Timeline key = new Timeline(policy(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1)));
    key.at("50s").take(3);
    assertThat(releaseAt(key, "55s", 2, "50s")).isEqualTo(4); // count 3 -> 1
    key.at("59s").take(1);
    // In the next window the count is 0 whatever happened: nothing to give back.
    assertThat(releaseAt(key, "61s", 2, "50s")).isEqualTo(5);
    key.at("70s").take(4);
    assertThat(plainReleaseAt(key, "75s", 3)).isEqualTo(4); // count 4 -> 1
    assertThat(plainReleaseAt(key, "75s", 3)).isEqualTo(5); // only 1 was left to give back
  }

  @Test
  void slidingWindow_fivePerTenSeconds() {
    Timeline key = new Timeline(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(10)));
    key.at("8s").take(4);
    // t=12s: previous 4 weighs floor(4 × 0.8) = 3.
    assertThat(key.at("12s").peek().remaining()).isEqualTo(2);
    // A plain release takes from the current window only, which is empty.
    assertThat(plainReleaseAt(key, "12s", 2)).isEqualTo(2);
    // The exact undo takes the 2 off the window they were counted in: floor(2 × 0.8) = 1.
    assertThat(releaseAt(key, "12s", 2, "8s")).isEqualTo(4);
  }

  @Test
  void slidingLog_threePerTenSeconds() {
    Timeline key = new Timeline(policy(Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10)));
    key.at("0s").take();
    key.at("4s").take();
    key.at("9s").take(); // log [0, 4, 9]
    long[] plain = key.state.clone();
    assertThat(plainReleaseAt(key, "9s", 1)).isEqualTo(1); // the newest goes: [0, 4]
    key.state = plain.clone();
    assertThat(releaseAt(key, "9s", 1, "4s")).isEqualTo(1); // the 4 s entry goes: [0, 9]
    assertThat(key.at("10s").peek().remaining()).isEqualTo(2); // 0 s has left: [9]
    // The 0 s admission has left the window: returning it at 11 s frees nothing.
    assertThat(releaseAt(key, "11s", 1, "0s")).isEqualTo(2);
  }

  @Test
  void slidingBuckets_fourPerMinuteSixBuckets() {
    Timeline key =
        new Timeline(
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(4)
                .window(Duration.ofMinutes(1))
                .buckets(6)
                .build());
    key.at("5s").take(2);
    key.at("25s").take(1);
    key.at("45s").take(1); // buckets [0,10): 2, [20,30): 1, [40,50): 1
    long[] full = key.state.clone();
    assertThat(plainReleaseAt(key, "46s", 1)).isEqualTo(1); // off [40,50), the newest
    key.state = full.clone();
    assertThat(releaseAt(key, "46s", 2, "5s")).isEqualTo(2); // off [0,10), where they were counted
    key.state = full.clone();
    key.at("125s").take(1); // the ring now holds buckets [60,70) .. [120,130)
    assertThat(releaseAt(key, "126s", 2, "5s")).isEqualTo(3); // [0,10) has left: nothing
  }

  @Test
  void tokenBucket_tenPerSecondBurstFive() {
    Timeline key = new Timeline(TokenBucketTest.policy(10, Duration.ofSeconds(1), 5));
    key.at("0ms").take(5); // empty: debt 500 ms
    long[] empty = key.state.clone();
    assertThat(plainReleaseAt(key, "0ms", 2)).isEqualTo(2);
    assertThat(plainReleaseAt(key, "0ms", 5)).isEqualTo(5); // never beyond the burst
    key.state = empty.clone();
    assertThat(releaseAt(key, "0ms", 5, "0ms")).isEqualTo(5); // at once: exact

    Timeline late = new Timeline(TokenBucketTest.policy(10, Duration.ofSeconds(1), 5));
    late.at("0ms").take(1);
    late.at("0ms").take(1); // debt 200 ms
    // Returned 150 ms later: its 100 ms of debt may have drained already, so nothing is freed.
    assertThat(releaseAt(late, "150ms", 1, "0ms")).isEqualTo(4); // debt 50 ms
    assertThat(late.at("150ms").peek().resetAfterNanos()).isEqualTo(millis(50));
  }

  @Test
  void gcra_thirtyPerMinuteBurstFifteen() {
    Timeline key =
        new Timeline(
            Policy.builder()
                .algorithm(Algorithm.GCRA)
                .limit(30)
                .window(Duration.ofSeconds(60))
                .burst(15)
                .build()); // T = 2 s, limit 16
    key.at("0s").take(16); // TAT 32 s: full
    assertThat(releaseAt(key, "1s", 4, "0s")).isEqualTo(4); // 8 s - 1 s freed: TAT 25 s
    assertThat(key.at("1s").peek().resetAfterNanos()).isEqualTo(seconds(24));
  }

  @Test
  void leakyBucket_twoPerSecondBurstThree() {
    Timeline key =
        new Timeline(
            Policy.builder()
                .algorithm(Algorithm.LEAKY_BUCKET)
                .limit(2)
                .window(Duration.ofSeconds(1))
                .burst(3)
                .build()); // T = 500 ms
    for (int i = 0; i < 4; i++) {
      key.at("0ms").take(); // delays 0, 500, 1000, 1500 ms
    }
    assertThat(plainReleaseAt(key, "0ms", 1)).isEqualTo(1); // the tail moves back to 1500 ms
    assertThat(key.at("0ms").take().delayNanos()).isEqualTo(millis(1500));
  }

  /** Releases {@code permits} admitted at {@code admittedAt} at {@code at}: remaining after. */
  private static long releaseAt(Timeline key, String at, long permits, String admittedAt) {
    long admitted = key.at(admittedAt).nowNanos();
    return key.algorithm.release(key.state, key.at(at).nowNanos(), permits, admitted).remaining();
  }

  private static long plainReleaseAt(Timeline key, String at, long permits) {
    return key.algorithm.release(key.state, key.at(at).nowNanos(), permits).remaining();
  }

  private static Policy policy(Algorithm algorithm, long limit, Duration window) {
    return Policy.builder().algorithm(algorithm).limit(limit).window(window).build();
  }
}
