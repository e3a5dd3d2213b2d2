package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.millis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeakyBucketTest {

  @Test
  void apply_twoPerSecondBurstThree_queuesFourWithGrowingDelaysThenDenies() {
    Timeline key = new Timeline(policy(2, Duration.ofSeconds(1), 3)); // T = 500 ms
    long[] delaysMillis = {0, 500, 1000, 1500};
    for (int i = 0; i < 4; i++) {
      Decision decision = key.at("0ms").take();
      assertThat(decision.allowed()).as("#%d", i + 1).isTrue();
      assertThat(decision.delayNanos()).as("#%d", i + 1).isEqualTo(millis(delaysMillis[i]));
      assertThat(decision.limit()).isEqualTo(4);
      assertThat(decision.remaining()).isEqualTo(3 - i);
      assertThat(decision.resetAfterNanos()).isEqualTo(millis(500L * (i + 1)));
    }
    Decision fifth = key.at("0ms").take();
    assertThat(fifth.allowed()).isFalse(); // it would wait behind 4 > burst 3
    assertThat(fifth.delayNanos()).isZero();
    assertThat(fifth.retryAfterNanos()).isEqualTo(millis(500));

    Decision sixth = key.at("500ms").take();
    assertThat(sixth.allowed()).isTrue();
    assertThat(sixth.delayNanos()).isEqualTo(millis(1500)); // proceeds at 2000 ms
  }

  @Test
  void apply_burstZero_isPurePolicingWithoutDelay() {
    Timeline key = new Timeline(policy(2, Duration.ofSeconds(1), 0));
    assertThat(key.algorithm.capacity()).isEqualTo(1);
    Decision first = key.at("0ms").take();
    assertThat(first.allowed()).isTrue();
    assertThat(first.delayNanos()).isZero();
    assertThat(key.at("499ms").take().allowed()).isFalse();
    Decision onTime = key.at("500ms").take();
    assertThat(onTime.allowed()).isTrue();
    assertThat(onTime.delayNanos()).isZero();
  }

  @Test
  void apply_outputIsEvenlySpaced_whateverTheArrivals() {
    Timeline key = new Timeline(policy(10, Duration.ofSeconds(1), 25)); // T = 100 ms
    long lastStart = Long.MIN_VALUE;
    // A burst of 15 at 0 ms, then 10 more at 300 ms: every admitted request starts >= T after the
    // previous one.
    long[] arrivals = new long[25];
    for (int i = 15; i < 25; i++) {
      arrivals[i] = millis(300);
    }
    for (long arrival : arrivals) {
      Decision decision = key.atNanos(arrival).take();
      assertThat(decision.allowed()).isTrue();
      long start = arrival + decision.delayNanos();
      if (lastStart != Long.MIN_VALUE) {
        assertThat(start - lastStart).isEqualTo(millis(100));
      }
      lastStart = start;
    }
    assertThat(lastStart).isEqualTo(millis(2400));
  }

  @Test
  void apply_admitsExactlyLikeGcraWithTheSameBurst() {
    Policy leaky = policy(5, Duration.ofSeconds(1), 3);
    Policy gcra = DesignExamplesTest.gcra(3, 5, Duration.ofSeconds(1));
    Timeline a = new Timeline(leaky);
    Timeline b = new Timeline(gcra);
    java.util.Random random = new java.util.Random(7);
    long t = 0;
    for (int i = 0; i < 2_000; i++) {
      t += random.nextInt(300_000_000);
      long permits = 1 + random.nextInt(4);
      Decision x = a.atNanos(t).take(permits);
      Decision y = b.atNanos(t).take(permits);
      assertThat(x.allowed()).isEqualTo(y.allowed());
      assertThat(x.remaining()).isEqualTo(y.remaining());
      assertThat(x.retryAfterNanos()).isEqualTo(y.retryAfterNanos());
    }
  }

  static Policy policy(long limit, Duration window, long burst) {
    return Policy.builder()
        .algorithm(Algorithm.LEAKY_BUCKET)
        .limit(limit)
        .window(window)
        .burst(burst)
        .build();
  }
}
