package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FixedWindowTest {
  private static final Instant ELEVEN = Instant.parse("2026-11-21T11:00:00Z");

  @Test
  void apply_sixthInTheSameMinute_deniedUntilTheNextWindowExactly() {
    Timeline key = new Timeline(policy(5, false), ELEVEN);
    for (int i = 0; i < 5; i++) {
      Decision decision = key.at("59s").take();
      assertThat(decision.remaining()).isEqualTo(4 - i);
      assertThat(decision.resetAfterNanos()).isEqualTo(seconds(1));
    }
    Decision sixth = key.at("59s").take();
    assertThat(sixth.allowed()).isFalse();
    assertThat(sixth.retryAfterNanos()).isEqualTo(seconds(1));
    assertThat(key.atNanos(seconds(60) - 1).take().allowed()).isFalse();
    Decision next = key.atNanos(seconds(60)).take();
    assertThat(next.allowed()).isTrue();
    assertThat(next.remaining()).isEqualTo(4);
    assertThat(next.resetAfterNanos()).isEqualTo(seconds(60));
  }

  @Test
  void apply_windowsAreAlignedToTheEpochNotToTheFirstRequest() {
    Timeline key = new Timeline(policy(1, false), ELEVEN);
    assertThat(key.at("30s").take().allowed()).isTrue();
    Decision denied = key.at("45s").take();
    assertThat(denied.retryAfterNanos()).isEqualTo(seconds(15)); // 11:01:00, not 11:01:30
  }

  @Test
  void apply_countDenied_denialsCountButOnlyWithinTheirWindow() {
    Timeline key = new Timeline(policy(2, true), ELEVEN);
    key.at("10s").take(2);
    Decision penalised = key.at("20s").take();
    assertThat(penalised.allowed()).isFalse();
    assertThat(penalised.remaining()).isZero();
    assertThat(key.state[1]).isEqualTo(3); // counted
    assertThat(key.at("60s").take().allowed()).isTrue();
  }

  @Test
  void apply_clockStepsBack_keepsCountingInTheStoredWindow() {
    Timeline key = new Timeline(policy(2, false), ELEVEN);
    key.at("70s").take(2); // window [11:01, 11:02)
    Decision back = key.at("50s").take(); // a member whose clock is 20 s behind
    assertThat(back.allowed()).isFalse();
  }

  static Policy policy(long limit, boolean countDenied) {
    return Policy.builder()
        .algorithm(Algorithm.FIXED_WINDOW)
        .limit(limit)
        .window(Duration.ofMinutes(1))
        .countDenied(countDenied)
        .build();
  }
}
