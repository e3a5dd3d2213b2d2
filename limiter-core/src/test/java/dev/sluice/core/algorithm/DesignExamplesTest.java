package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Every worked example of docs/algorithms.md, as a timeline. */
class DesignExamplesTest {

  @Test
  void slidingWindow_fivePerTenSeconds_requestAtTwelveSecondsSeesWeightPointEight() {
    Timeline key = new Timeline(Policy.of(5, Duration.ofSeconds(10)));
    for (String t : new String[] {"0s", "2s", "4s", "6s", "8s"}) {
      assertThat(key.at(t).take().allowed()).as("t=%s", t).isTrue();
    }
    // t=12s: elapsed 2 s of [10,20), weight (10-2)/10 = 0.8, estimate floor(5*0.8) + 0 = 4.
    Decision decision = key.at("12s").take();
    assertThat(decision.allowed()).isTrue();
    assertThat(decision.remaining()).isZero(); // 4 + 1 = 5: the limit exactly
  }

  @Test
  void slidingWindow_sevenPerMinute_previousFiveCurrentThreeAtThirtyPercent_allowsOneThenDenies() {
    Timeline key = new Timeline(Policy.of(7, Duration.ofMinutes(1)));
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("10s").take().allowed()).isTrue(); // previous window [0,60): 5
    }
    for (int i = 0; i < 3; i++) {
      assertThat(key.at("61s").take().allowed()).isTrue(); // current window [60,120): 3
    }
    // 30 % of the current window: t = 60 s + 18 s. floor(5 * 0.7) + 3 = 6; 6 + 1 <= 7.
    Decision seventh = key.at("78s").take();
    assertThat(seventh.allowed()).isTrue();
    assertThat(seventh.remaining()).isZero();
    Decision eighth = key.at("78s").take();
    assertThat(eighth.allowed()).isFalse();
    assertThat(eighth.remaining()).isZero();
  }

  @Test
  void gcra_burst15_30per60s_firstRequest_limit16_remaining15_resetAfter2s() {
    // redis-cell: CL.THROTTLE user123 15 30 60 1 -> 0, 16, 15, -1, 2
    Timeline key = new Timeline(gcra(15, 30, Duration.ofSeconds(60)));
    Decision first = key.at("0s").take();
    assertThat(first.allowed()).isTrue();
    assertThat(first.limit()).isEqualTo(16);
    assertThat(first.remaining()).isEqualTo(15);
    assertThat(first.retryAfterNanos()).isZero();
    assertThat(first.resetAfterNanos()).isEqualTo(seconds(2));
  }

  @Test
  void fixedWindow_fivePerMinute_fiveAt110059AndFiveAt110100_allAllowed() {
    Timeline key = new Timeline(fixedWindow(5), Instant.parse("2026-11-21T11:00:00Z"));
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("59s").take().allowed()).as("11:00:59 #%d", i + 1).isTrue();
    }
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("60s").take().allowed()).as("11:01:00 #%d", i + 1).isTrue();
    }
  }

  @Test
  void slidingWindow_fivePerMinute_fiveAt110059_thenAllFiveAt110100Denied() {
    Timeline key =
        new Timeline(Policy.of(5, Duration.ofMinutes(1)), Instant.parse("2026-11-21T11:00:00Z"));
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("59s").take().allowed()).as("11:00:59 #%d", i + 1).isTrue();
    }
    // 11:01:00 is elapsed 0 of the new window: weight 1.0, floor(5 * 1.0) + 0 = 5.
    for (int i = 0; i < 5; i++) {
      assertThat(key.at("60s").take().allowed()).as("11:01:00 #%d", i + 1).isFalse();
    }
  }

  static Policy gcra(long burst, long limit, Duration window) {
    return Policy.builder()
        .algorithm(Algorithm.GCRA)
        .limit(limit)
        .window(window)
        .burst(burst)
        .build();
  }

  static Policy fixedWindow(long perMinute) {
    return Policy.builder()
        .algorithm(Algorithm.FIXED_WINDOW)
        .limit(perMinute)
        .window(Duration.ofMinutes(1))
        .build();
  }
}
