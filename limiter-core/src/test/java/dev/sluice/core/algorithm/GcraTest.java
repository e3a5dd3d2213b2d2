package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Timeline.millis;
import static dev.sluice.core.algorithm.Timeline.seconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** GCRA answers what redis-cell's {@code CL.THROTTLE} answers, reply for reply. */
class GcraTest {

  /** One {@code CL.THROTTLE} reply: limited, limit, remaining, retry_after, reset_after (s, up). */
  record Reply(int limited, long limit, long remaining, long retryAfterSeconds, long resetAfter) {
    static Reply of(Decision decision) {
      return new Reply(
          decision.allowed() ? 0 : 1,
          decision.limit(),
          decision.remaining(),
          decision.allowed() ? -1 : decision.retryAfterSeconds(),
          decision.resetAfterSeconds());
    }
  }

  @Test
  void clThrottle_user123_15_30_60_sixteenAtOnceThenDenied() {
    // CL.THROTTLE user123 15 30 60 1, repeated at t=0: T = 2 s, tolerance 32 s.
    Timeline key = new Timeline(policy(15, 30, Duration.ofSeconds(60)));
    for (int i = 0; i < 16; i++) {
      Decision decision = key.at("0s").take();
      assertThat(Reply.of(decision)).isEqualTo(new Reply(0, 16, 15 - i, -1, 2L * (i + 1)));
      assertThat(decision.resetAfterNanos()).isEqualTo(seconds(2L * (i + 1)));
    }
    Decision seventeenth = key.at("0s").take();
    assertThat(Reply.of(seventeenth)).isEqualTo(new Reply(1, 16, 0, 2, 32));
    assertThat(seventeenth.retryAfterNanos()).isEqualTo(seconds(2));

    // 1 s later: still 1 s to wait, and the TAT is 31 s ahead.
    assertThat(Reply.of(key.at("1s").take())).isEqualTo(new Reply(1, 16, 0, 1, 31));
    // 2 s later one emission interval has drained: allowed, nothing left, 32 s to full again.
    assertThat(Reply.of(key.at("2s").take())).isEqualTo(new Reply(0, 16, 0, -1, 32));
    // The TAT is now 34 s. At 12 s it is 22 s ahead; one more makes 24: floor((32 - 24) / 2) = 4.
    assertThat(Reply.of(key.at("12s").take())).isEqualTo(new Reply(0, 16, 4, -1, 24));
    // A peek (quantity 0) reports the same state and changes nothing.
    assertThat(Reply.of(key.at("12s").peek())).isEqualTo(new Reply(0, 16, 4, -1, 24));
    assertThat(Reply.of(key.at("12s").peek())).isEqualTo(new Reply(0, 16, 4, -1, 24));
    // A quantity of 6 needs 12 s of room and there are 8: denied, retry in 4 s.
    assertThat(Reply.of(key.at("12s").take(6))).isEqualTo(new Reply(1, 16, 4, 4, 24));
    assertThat(Reply.of(key.at("15s").take(6))).isEqualTo(new Reply(1, 16, 5, 1, 21));
    assertThat(Reply.of(key.at("16s").take(6))).isEqualTo(new Reply(0, 16, 0, -1, 32));
  }

  /**
   * redis-cell's own test table (limit 5 = burst 4, 1 per second), case by case: volume, then
   * remaining, reset_after and retry_after in milliseconds (-1: not limited).
   */
  @Test
  void redisCellTable_burst4_onePerSecond_everyCaseMatches() {
    Timeline key = new Timeline(policy(4, 1, Duration.ofSeconds(1)));
    long[][] cases = {
      // now ms, volume, remaining, resetAfter ms, retryAfter ms (-1 = allowed)
      {0, 1, 4, 1000, -1},
      {0, 1, 3, 2000, -1},
      {0, 1, 2, 3000, -1},
      {0, 1, 1, 4000, -1},
      {0, 1, 0, 5000, -1},
      {0, 1, 0, 5000, 1000},
      {3000, 1, 2, 3000, -1},
      {3100, 1, 1, 3900, -1},
      {4000, 1, 1, 4000, -1},
      {8000, 1, 4, 1000, -1},
      {9500, 1, 4, 1000, -1},
      {9500, 0, 4, 1000, -1}, // zero volume peeks
      {9500, 2, 2, 3000, -1}, // high volume uses more
      {9500, 5, 2, 3000, 3000}, // large requests cannot exceed the limit
    };
    for (long[] c : cases) {
      Decision decision = key.atNanos(millis(c[0])).take(c[1]);
      String at = "t=" + c[0] + "ms volume " + c[1];
      assertThat(decision.limit()).as(at).isEqualTo(5);
      assertThat(decision.allowed()).as(at).isEqualTo(c[4] < 0);
      assertThat(decision.remaining()).as(at).isEqualTo(c[2]);
      assertThat(decision.resetAfterNanos()).as(at).isEqualTo(millis(c[3]));
      assertThat(decision.retryAfterNanos()).as(at).isEqualTo(c[4] < 0 ? 0 : millis(c[4]));
    }
  }

  @Test
  void apply_moreThanBurstPlusOne_isAnErrorNamingCost() {
    // redis-cell answers "limited, retry -1" to volume 6 on limit 5; a request that can never
    // succeed is a caller's mistake here, and says so.
    Timeline key = new Timeline(policy(4, 1, Duration.ofSeconds(1)));
    assertThatThrownBy(() -> key.take(6))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"))
        .hasMessageContaining("capacity 5");
    assertThat(key.take(5).allowed()).isTrue();
  }

  @Test
  void apply_emissionIntervalNotWholeNanoseconds_sevenPermitsFillExactlyOneSecond() {
    // 7 per second: T = 142,857,142.857 ns. redis-cell truncates T, so seven permits would fill
    // 999,999,994 ns and the key would admit slightly faster than 7 per second. Here the schedule
    // is exact: seven singles end exactly 1 s ahead, like one request for seven.
    Timeline singles = new Timeline(policy(6, 7, Duration.ofSeconds(1)));
    Decision last = null;
    for (int i = 0; i < 7; i++) {
      last = singles.at("0s").take();
    }
    assertThat(last.resetAfterNanos()).isEqualTo(seconds(1));
    assertThat(singles.take(1).retryAfterNanos()).isEqualTo(142_857_143L); // ceil(T)

    Timeline seven = new Timeline(policy(6, 7, Duration.ofSeconds(1)));
    assertThat(seven.take(7).resetAfterNanos()).isEqualTo(seconds(1));
    assertThat(seven.state).isEqualTo(singles.state);

    // A thousand seconds of a client that retries exactly when told: the full burst of 7 at once,
    // then one every T. The 7000th interval ends exactly at 1000 s, outside [0, 1000 s): 7 + 6999.
    // With T truncated to 142,857,142 ns (redis-cell) it would land 6 us early and count 7007.
    int admitted = 0;
    long t = 0;
    while (t < seconds(1000)) {
      Decision decision = singles.atNanos(seconds(1) + t).take();
      if (decision.allowed()) {
        admitted++;
      } else {
        t += decision.retryAfterNanos();
      }
    }
    assertThat(admitted).isEqualTo(7 + 6999);
  }

  static Policy policy(long burst, long limit, Duration window) {
    return Policy.builder()
        .algorithm(Algorithm.GCRA)
        .limit(limit)
        .window(window)
        .burst(burst)
        .build();
  }
}
