package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.millis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  @Test
  void apply_tenPerSecondBurstFive_followsTheClassHeaderTimeline() {
    Timeline key = new Timeline(policy(10, Duration.ofSeconds(1), 5));
    for (int i = 0; i < 5; i++) {
      Decision decision = key.at("0ms").take();
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.limit()).isEqualTo(5);
      assertThat(decision.remaining()).isEqualTo(4 - i);
    }
    Decision sixth = key.at("0ms").take();
    assertThat(sixth.allowed()).isFalse();
    assertThat(sixth.retryAfterNanos()).isEqualTo(millis(100));
    assertThat(sixth.resetAfterNanos()).isEqualTo(millis(500));

    assertThat(key.at("99ms").take().allowed()).isFalse(); // 1 ms short of a token
    Decision refilled = key.at("100ms").take();
    assertThat(refilled.allowed()).isTrue();
    assertThat(refilled.remaining()).isZero();

    Decision later = key.at("350ms").take(); // 2.5 tokens, take 1: 1.5 left
    assertThat(later.allowed()).isTrue();
    assertThat(later.remaining()).isEqualTo(1);
    assertThat(later.resetAfterNanos()).isEqualTo(millis(350)); // 3.5 tokens to refill

    Decision full = key.at("850ms").peek();
    assertThat(full.remaining()).isEqualTo(5); // capped at the burst, not 6.5
    assertThat(full.resetAfterNanos()).isZero();
  }

  @Test
  void apply_defaultBurst_isTheLimit() {
    Timeline key =
        new Timeline(
            Policy.builder()
                .algorithm(Algorithm.TOKEN_BUCKET)
                .limit(3)
                .window(Duration.ofMinutes(1))
                .build());
    assertThat(key.algorithm.capacity()).isEqualTo(3);
    assertThat(key.take(3).allowed()).isTrue();
    Decision denied = key.take();
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfterNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
  }

  @Test
  void apply_moreThanBurst_isAnErrorNamingCost() {
    Timeline key = new Timeline(policy(10, Duration.ofSeconds(1), 5));
    assertThatThrownBy(() -> key.take(6))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));
    assertThatThrownBy(() -> key.take(-1))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));
  }

  @Test
  void apply_largeRequestWaitsForEnoughTokens_retryAfterIsExactAndTight() {
    Timeline key = new Timeline(policy(3, Duration.ofSeconds(1), 3)); // T = 333,333,333.3 ns
    assertThat(key.take(3).allowed()).isTrue();
    Decision denied = key.take(2);
    // Two tokens refill in 666,666,666.6 ns: wait 666,666,667.
    assertThat(denied.retryAfterNanos()).isEqualTo(666_666_667L);
    assertThat(key.after(666_666_666L).take(2).allowed()).isFalse();
    assertThat(key.after(1).take(2).allowed()).isTrue();
  }

  @Test
  void releaseAdmittedAt_exactUndoAtTheSameInstant_lessLater() {
    Timeline key = new Timeline(policy(10, Duration.ofSeconds(1), 5));
    long admittedAt = key.at("0ms").nowNanos();
    key.take(5);
    // At once: the 5 tokens come back whole.
    long[] atOnce = key.state.clone();
    assertThat(key.algorithm.release(atOnce, admittedAt, 5, admittedAt).remaining()).isEqualTo(5);
    // 250 ms later 2.5 tokens have refilled anyway, and without the admission the bucket would
    // have been full all along: only 500 ms - 250 ms of debt is the admission's to free.
    Decision late = key.algorithm.release(key.state, admittedAt + millis(250), 5, admittedAt);
    assertThat(late.remaining()).isEqualTo(5);
    assertThat(late.resetAfterNanos()).isZero();
  }

  @Test
  void releaseAdmittedAt_countDenied_debtAtThePenaltyCap_freesNothing() {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(10)
            .window(Duration.ofSeconds(1))
            .burst(10)
            .countDenied(true)
            .build();
    Timeline key = new Timeline(policy); // T = 100 ms, tolerance 1 s, penalty cap 2 s
    long admittedAt = key.at("0ms").nowNanos();
    key.take(1);
    key.take(9);
    assertThat(key.take(10).allowed()).isFalse(); // debt 1 s -> 2 s, the cap
    assertThat(key.take(1).allowed()).isFalse(); // at the cap: nothing added
    // Without the first request: 0.9 s, then 1.9 s, then 2 s: the cap too. Nothing to free.
    Decision released = key.algorithm.release(key.state, admittedAt, 1, admittedAt);
    assertThat(released.resetAfterNanos()).isEqualTo(millis(2_000));
    assertThat(key.peek().remaining()).isZero();
    LimiterAlgorithm bucket = key.algorithm;
    assertThat(bucket.apply(key.state.clone(), admittedAt + millis(1_100) - 1, 1).allowed())
        .isFalse();
  }

  static Policy policy(long limit, Duration window, long burst) {
    return Policy.builder()
        .algorithm(Algorithm.TOKEN_BUCKET)
        .limit(limit)
        .window(window)
        .burst(burst)
        .build();
  }
}
