package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SlidingLogTest {

  @Test
  void apply_threePerTenSeconds_followsTheClassHeaderTimeline() {
    Timeline key = new Timeline(policy(3, false));
    assertThat(key.at("0s").take().allowed()).isTrue();
    assertThat(key.at("4s").take().allowed()).isTrue();
    Decision third = key.at("9s").take();
    assertThat(third.remaining()).isZero();
    assertThat(third.resetAfterNanos()).isEqualTo(seconds(10)); // the 9 s entry leaves at 19 s
    Decision fourth = key.at("9s").take();
    assertThat(fourth.allowed()).isFalse();
    assertThat(fourth.retryAfterNanos()).isEqualTo(seconds(1)); // the 0 s entry leaves at 10 s
    assertThat(key.atNanos(seconds(10) - 1).take().allowed()).isFalse();
    assertThat(key.at("10s").take().allowed()).isTrue();
  }

  @Test
  void apply_requestForSeveral_waitsForAsManyToLeave() {
    Timeline key = new Timeline(policy(3, false));
    key.at("1s").take();
    key.at("2s").take();
    key.at("3s").take();
    Decision two = key.at("5s").take(2);
    assertThat(two.allowed()).isFalse();
    assertThat(two.retryAfterNanos()).isEqualTo(seconds(7)); // 2 must leave: the 2 s one, at 12 s
    assertThat(two.resetAfterNanos()).isEqualTo(seconds(8));
  }

  @Test
  void apply_countDenied_logsTheAttemptsSoTheClientWaitsAFullQuietWindow() {
    Timeline key = new Timeline(policy(2, true));
    key.at("0s").take(2);
    Decision hammer = key.at("5s").take();
    assertThat(hammer.allowed()).isFalse();
    // The attempt evicted one 0 s entry: the log is [0, 5], and the 0 s one leaves at 10 s.
    assertThat(hammer.retryAfterNanos()).isEqualTo(seconds(5));
    assertThat(key.at("9s").take().allowed()).isFalse();
    // The log now holds 5 s and 9 s; the client is let in once one of them has left.
    Decision waited = key.at("15s").take();
    assertThat(waited.allowed()).isTrue();
  }

  @Test
  void fit_limitShrinks_keepsTheNewestTimestamps() {
    Timeline key = new Timeline(policy(5, false));
    for (int s = 1; s <= 5; s++) {
      key.atNanos(seconds(s)).take();
    }
    LimiterAlgorithm smaller = LimiterAlgorithm.of(policy(3, false));
    long[] fitted = smaller.fit(key.state);
    assertThat(fitted).hasSize(2 + 3);
    Decision denied = smaller.apply(fitted, seconds(6), 1);
    assertThat(denied.allowed()).isFalse();
    // Kept 3, 4, 5 s: the 3 s entry leaves at 13 s.
    assertThat(denied.retryAfterNanos()).isEqualTo(seconds(7));
  }

  @Test
  void fit_limitGrows_keepsEveryTimestamp() {
    Timeline key = new Timeline(policy(2, false));
    key.at("1s").take();
    key.at("2s").take();
    LimiterAlgorithm larger = LimiterAlgorithm.of(policy(4, false));
    long[] fitted = larger.fit(key.state);
    assertThat(larger.apply(fitted, seconds(3), 2).allowed()).isTrue();
    Decision full = larger.apply(fitted, seconds(3), 1);
    assertThat(full.allowed()).isFalse();
    assertThat(full.retryAfterNanos()).isEqualTo(seconds(8)); // the 1 s entry, at 11 s
  }

  @Test
  void fit_garbage_startsFresh() {
    LimiterAlgorithm log = LimiterAlgorithm.of(policy(3, false));
    assertThat(log.fit(new long[] {7, 99, 1, 2})).isEqualTo(log.newState());
    assertThat(log.fit(new long[0])).isEqualTo(log.newState());
  }

  @Test
  void releaseAdmittedAt_anAdmissionThatLeftTheWindow_freesNothing() {
    Timeline key = new Timeline(policy(3, false));
    key.at("0s").take();
    key.at("11s").take(); // drops the 0 s entry: the log is [11 s]
    Decision released = key.algorithm.release(key.state, key.at("12s").nowNanos(), 1, 0);
    // Forgetting the 0 s admission changes nothing now; the 11 s entry is someone else's.
    assertThat(released.remaining()).isEqualTo(2);
    assertThat(key.take(3).allowed()).isFalse();
  }

  @Test
  void releaseAdmittedAt_countDenied_penaltyPushedALiveEntryOut_movesTheEntryToTheOldest() {
    Timeline key = new Timeline(policy(2, true));
    key.at("0s").take();
    long admittedAt = key.at("1s").nowNanos();
    key.take();
    assertThat(key.at("2s").take().allowed()).isFalse(); // logged, evicting the 0 s entry: [1, 2]
    Decision released = key.algorithm.release(key.state, key.at("3s").nowNanos(), 1, admittedAt);
    // Without the 1 s request the history counts [0 s, 2 s] (the 2 s one would have had room).
    // The ring no longer knows 0 s, so the entry moves to the oldest it knows, 1 s: [1 s, 2 s].
    assertThat(released.remaining()).isZero();
    LimiterAlgorithm log = key.algorithm;
    long origin = key.at("0s").nowNanos();
    assertThat(log.apply(key.state.clone(), origin + seconds(11) - 1, 1).allowed()).isFalse();
    assertThat(log.apply(key.state.clone(), origin + seconds(11), 1).allowed()).isTrue();
  }

  @Test
  void release_countDenied_ringWithRoom_removesTheEntries() {
    Timeline key = new Timeline(policy(3, true));
    key.at("0s").take();
    long admittedAt = key.at("1s").nowNanos();
    key.take();
    Decision released = key.algorithm.release(key.state, key.at("2s").nowNanos(), 1, admittedAt);
    assertThat(released.remaining()).isEqualTo(2);
    assertThat(key.algorithm.release(key.state, key.nowNanos(), 1).remaining()).isEqualTo(3);
  }

  static Policy policy(long limit, boolean countDenied) {
    return Policy.builder()
        .algorithm(Algorithm.SLIDING_LOG)
        .limit(limit)
        .window(Duration.ofSeconds(10))
        .countDenied(countDenied)
        .build();
  }
}
