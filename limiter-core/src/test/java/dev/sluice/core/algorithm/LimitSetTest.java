package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.millis;
import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimitSetTest {

  @Test
  void apply_tenPerSecondAndFifteenPerMinute_followsTheClassHeaderTimeline() {
    Timeline key =
        new Timeline(
            new Policy(
                List.of(fixed(10, Duration.ofSeconds(1)), fixed(15, Duration.ofMinutes(1))),
                false,
                false));
    for (int i = 0; i < 10; i++) {
      assertThat(key.at("0s").take().allowed()).isTrue();
    }
    Decision eleventh = key.at("0s").take();
    assertThat(eleventh.allowed()).isFalse();
    assertThat(eleventh.limit()).isEqualTo(10); // the second limit denies
    assertThat(eleventh.bindingLimitIndex()).isZero();
    assertThat(eleventh.retryAfterNanos()).isEqualTo(seconds(1));
    // The second's limit is whole in a second; the minute's (10 taken) only at its end.
    assertThat(eleventh.bindingResetAfterNanos()).isEqualTo(seconds(1));
    assertThat(eleventh.resetAfterNanos()).isEqualTo(seconds(60));
    assertThat(key.at("0s").peek().remaining()).isZero(); // nothing counted: 10/10 and 10/15
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("1s").take().allowed()).isTrue();
    }
    Decision sixteenth = key.at("1s").take();
    assertThat(sixteenth.allowed()).isFalse();
    assertThat(sixteenth.limit()).isEqualTo(15); // the minute denies, until it ends
    assertThat(sixteenth.bindingLimitIndex()).isEqualTo(1);
    assertThat(sixteenth.retryAfterNanos()).isEqualTo(seconds(59));
    assertThat(sixteenth.bindingResetAfterNanos()).isEqualTo(seconds(59));
  }

  @Test
  void apply_twoLimitsOfOneQuota_theIndexNamesTheOneThatBinds() {
    // 3 per second and 3 per hour: the quota cannot tell them apart, the index can.
    Timeline key =
        new Timeline(
            new Policy(
                List.of(fixed(3, Duration.ofSeconds(1)), fixed(3, Duration.ofHours(1))),
                false,
                false));
    key.at("0s").take(2);
    Decision third = key.at("0s").take();
    assertThat(third.allowed()).isTrue();
    // Both have none left; on the tie the longer wait until full binds: the hour.
    assertThat(third.bindingLimitIndex()).isEqualTo(1);
    Decision fourth = key.at("500ms").take();
    assertThat(fourth.allowed()).isFalse();
    assertThat(fourth.bindingLimitIndex()).isEqualTo(1); // the hour denies for longest
    assertThat(fourth.limit()).isEqualTo(3);
  }

  @Test
  void apply_denied_remainingIsTheFewestAnyLimitHasLeft() {
    Timeline key =
        new Timeline(
            new Policy(
                List.of(fixed(5, Duration.ofMinutes(1)), log(3, Duration.ofSeconds(1))),
                false,
                false));
    key.at("0s").take(3); // 3/5 in the minute, 3/3 in the second
    Decision denied = key.at("500ms").take(3);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.limit()).isEqualTo(5); // the minute denies for longest
    assertThat(denied.retryAfterNanos()).isEqualTo(millis(59_500));
    // The minute has 2 left, but the second has none: a request for 2 is denied.
    assertThat(denied.remaining()).isZero();
    assertThat(key.take(2).allowed()).isFalse();
  }

  @Test
  void apply_countDenied_aLimitThatAdmittedButCountedThePenalty_isWaitedFor() {
    List<Limit> limits = List.of(fixed(2, Duration.ofMinutes(1)), log(1, Duration.ofSeconds(1)));
    Timeline key = new Timeline(new Policy(limits, false, true));
    key.at("0s").take(); // 1/2 in the minute, 1/1 in the second
    Decision denied = key.at("500ms").take(); // the minute admits, the second denies: both count
    assertThat(denied.allowed()).isFalse();
    // The minute is full now (2/2): the request is admitted again only when it ends.
    assertThat(denied.retryAfterNanos()).isEqualTo(millis(59_500));
    LimiterAlgorithm plain = LimiterAlgorithm.of(new Policy(limits, false, false));
    long now = key.nowNanos();
    assertThat(plain.apply(key.state.clone(), now + millis(59_500) - 1, 1).allowed()).isFalse();
    assertThat(plain.apply(key.state.clone(), now + millis(59_500), 1).allowed()).isTrue();
  }

  private static Limit fixed(long limit, Duration window) {
    return Limit.builder().algorithm(Algorithm.FIXED_WINDOW).limit(limit).window(window).build();
  }

  private static Limit log(long limit, Duration window) {
    return Limit.builder().algorithm(Algorithm.SLIDING_LOG).limit(limit).window(window).build();
  }
}
