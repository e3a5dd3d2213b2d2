package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SlidingWindowTest {

  @Test
  void apply_denied_retryAfterIsWhenThePreviousShareHasShrunkEnough() {
    Timeline key = new Timeline(Policy.of(5, Duration.ofSeconds(10)));
    key.at("5s").take(5); // window [0,10): 5
    Decision denied = key.at("10s").take(); // weight 1.0: estimate 5
    assertThat(denied.allowed()).isFalse();
    // floor(5 * (10 - e) / 10) <= 4 once 5 * (10 - e) < 50, i.e. after 1 ns: e = 1 ns.
    assertThat(denied.retryAfterNanos()).isEqualTo(1);
    assertThat(key.after(1).take().allowed()).isTrue();

    Decision two = key.take(2); // estimate is now 4 + 1 = 5: needs 2 free
    assertThat(two.allowed()).isFalse();
    // floor(5 * (10 - e) / 10) <= 2 once 10 - e < 6: e = 4 s + 1 ns, and 1 ns has elapsed.
    assertThat(two.retryAfterNanos()).isEqualTo(seconds(4));
    assertThat(key.after(two.retryAfterNanos() - 1).take(2).allowed()).isFalse();
    assertThat(key.after(1).take(2).allowed()).isTrue();
  }

  @Test
  void apply_currentWindowFull_waitsIntoTheNextWindow() {
    Timeline key = new Timeline(Policy.of(4, Duration.ofSeconds(10)));
    key.at("12s").take(4); // current window [10,20) full, previous empty
    Decision one = key.at("15s").take();
    // Next window [20,30): floor(4 * (10 - e) / 10) <= 3 once 4 * (10 - e) < 40: e = 1 ns.
    assertThat(one.retryAfterNanos()).isEqualTo(seconds(5) + 1);
    // Full capacity once floor(4 * (10 - e) / 10) = 0: 10 - e < 2.5, e = 7.5 s + 1 ns (27.5 s).
    assertThat(one.resetAfterNanos()).isEqualTo(seconds(12) + 500_000_001L);
    Decision two = key.take(2);
    // floor(4 * (10 - e) / 10) <= 2 once 10 - e < 7.5: e = 2.5 s + 1 ns.
    assertThat(two.retryAfterNanos()).isEqualTo(seconds(5) + 2_500_000_001L);
    assertThat(key.after(two.retryAfterNanos() - 1).take(2).allowed()).isFalse();
    assertThat(key.after(1).take(2).allowed()).isTrue();
  }

  @Test
  void apply_countDenied_retryAfterAccountsForThePenalty() {
    Policy policy =
        Policy.builder().limit(2).window(Duration.ofSeconds(10)).countDenied(true).build();
    Timeline key = new Timeline(policy);
    key.at("1s").take(2);
    Decision denied = key.at("2s").take(); // counted: current is 3
    assertThat(denied.allowed()).isFalse();
    assertThat(key.state[1]).isEqualTo(3);
    // Without the penalty the wait would end 3.33 s into the next window; with 3 counted it is
    // floor(3 * (10 - e) / 10) <= 1, 10 - e < 6.67: e = 3.333333334 s.
    assertThat(denied.retryAfterNanos()).isEqualTo(seconds(8) + 3_333_333_334L);
    long[] before = key.state.clone();
    assertThat(key.after(denied.retryAfterNanos() - 1).peek().remaining()).isZero();
    assertThat(key.state).isEqualTo(before);
    assertThat(key.after(1).take().allowed()).isTrue();
  }

  @Test
  void apply_clockStepsBack_keepsTheCounts() {
    Timeline key = new Timeline(Policy.of(2, Duration.ofSeconds(10)));
    key.at("25s").take(2);
    assertThat(key.at("15s").take().allowed()).isFalse();
  }

  @Test
  void apply_deniedOrPeek_leavesTheStateBitForBit() {
    Timeline key = new Timeline(Policy.of(2, Duration.ofSeconds(10)));
    key.at("5s").take(2);
    long[] before = key.state.clone();
    assertThat(key.at("25s").peek().remaining()).isEqualTo(2); // would roll two windows on
    assertThat(key.state).isEqualTo(before);
    assertThat(key.at("9s").take().allowed()).isFalse();
    assertThat(key.state).isEqualTo(before);
  }
}
