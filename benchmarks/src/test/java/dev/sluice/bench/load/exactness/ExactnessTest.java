package dev.sluice.bench.load.exactness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Tallies from several load threads, merged per key and judged; rounds summed. */
class ExactnessTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long START = 1_790_000_000L * SECOND; // an aligned second
  private static final AdmissionBound FIVE_PER_SECOND = new SlidingWindowBound(5, SECOND);

  @Test
  void judge_threadsOnTheSameKey_areAddedUpBeforeJudging() {
    // Two threads admit 3 each on key 1 in the same second: 6 > 5, one over. Each thread alone
    // would be within the bound, so a judge that did not merge would count nothing.
    AdmissionTally a = tally();
    AdmissionTally b = tally();
    for (int i = 0; i < 3; i++) {
      a.record(1, at(10 + i), at(11 + i));
      b.record(1, at(20 + i), at(21 + i));
    }

    Exactness e = Exactness.judge(List.of(a, b), FIVE_PER_SECOND, key -> "key" + key);

    assertThat(e.overAdmitted()).isEqualTo(1);
    assertThat(e.keysOver()).isEqualTo(1);
    assertThat(e.worstKey()).isEqualTo("key1");
    assertThat(e.admitted()).isEqualTo(6);
    assertThat(e.judged()).isEqualTo(6);
  }

  @Test
  void judge_keysAreJudgedApart_andTheWorstIsNamed() {
    AdmissionTally t = tally();
    for (int i = 0; i < 8; i++) {
      t.record(7, at(100 + i), at(100 + i)); // 3 over
      t.record(3, at(200 + i), at(200 + i)); // 3 over...
    }
    t.record(3, at(300), at(300)); // ...4 over on key 3
    for (int i = 0; i < 5; i++) {
      t.record(9, at(400 + i), at(400 + i)); // exactly the limit
    }

    Exactness e = Exactness.judge(List.of(t), FIVE_PER_SECOND, key -> "k" + key);

    assertThat(e.overAdmitted()).isEqualTo(7);
    assertThat(e.keysOver()).isEqualTo(2);
    assertThat(e.worstKey()).isEqualTo("k3");
    assertThat(e.worstKeyOver()).isEqualTo(4);
  }

  @Test
  void record_slack_movesTheEarliestDecisionBeforeTheSend() {
    // Sent 0.5 ms after a sub-window starts: with 1 ms of slack the decision may lie in the
    // sub-window before, so the admission is not judged; without slack it is.
    long subWindow = FIVE_PER_SECOND.subWindowNanos();
    AdmissionTally withSlack = new AdmissionTally(subWindow, 1_000_000, START);
    AdmissionTally without = new AdmissionTally(subWindow, 0, START);
    long sent = START + subWindow + 500_000;

    withSlack.record(0, sent, sent + 100_000);
    without.record(0, sent, sent + 100_000);

    assertThat(withSlack.straddled()).isEqualTo(1);
    assertThat(without.straddled()).isZero();
  }

  @Test
  void record_manyKeysAndSubWindows_growsTheTableAndLosesNothing() {
    AdmissionTally t = tally();
    int keys = 5_000;
    for (int k = 0; k < keys; k++) {
      for (int s = 0; s < 4; s++) {
        long at = START + s * FIVE_PER_SECOND.subWindowNanos() + 1_000;
        t.record(k, at, at);
      }
    }

    Exactness e = Exactness.judge(List.of(t), FIVE_PER_SECOND, key -> "k" + key);

    assertThat(e.admitted()).isEqualTo(4L * keys);
    assertThat(e.judged()).isEqualTo(4L * keys);
    assertThat(e.overAdmitted()).isZero(); // 4 per key per second <= 5
  }

  @Test
  void plus_roundsAddUp_andKeepTheWorseRoundsKey() {
    Exactness first = new Exactness(100, 90, 5, 2, "a", 3);
    Exactness second = new Exactness(50, 50, 9, 1, "b", 9);

    Exactness sum = first.plus(second);

    assertThat(sum).isEqualTo(new Exactness(150, 140, 14, 2, "b", 9));
  }

  @Test
  void judge_tallyOfAnotherSubWindow_isRefused() {
    AdmissionTally other = new AdmissionTally(1_000, 0, START);

    assertThatThrownBy(() -> Exactness.judge(List.of(other), FIVE_PER_SECOND, k -> ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static AdmissionTally tally() {
    return new AdmissionTally(FIVE_PER_SECOND.subWindowNanos(), 0, START);
  }

  /** {@code millis} after the start, in epoch nanoseconds. */
  private static long at(long millis) {
    return START + millis * 1_000_000;
  }
}
