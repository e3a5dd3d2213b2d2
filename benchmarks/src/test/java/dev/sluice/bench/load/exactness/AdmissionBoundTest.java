package dev.sluice.bench.load.exactness;

import static dev.sluice.bench.load.exactness.Traces.MILLI;
import static dev.sluice.bench.load.exactness.Traces.ORIGIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.contract.AdmissionBounds;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import dev.sluice.core.contract.SaturationCase;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The harness's over-admission count, checked two ways: against limiter-core's {@link
 * AdmissionBounds} on the same traces (a correct limiter is never blamed; whatever is counted,
 * AdmissionBounds refuses too), and against hand-counted timelines.
 */
@ExtendWith(Seeds.class)
class AdmissionBoundTest {
  private static final long SLACK = MILLI;

  /** The contract's saturation cases whose algorithms have a counter-based bound. */
  static List<SaturationCase> cases() {
    return SaturationCase.all().stream()
        .filter(
            c ->
                switch (c.policy().algorithm()) {
                  case SLIDING_WINDOW, TOKEN_BUCKET, GCRA, LEAKY_BUCKET -> true;
                  default -> false;
                })
        .toList();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void saturatedKey_keptState_nothingOverAdmitted(SaturationCase c) {
    List<Admission> admitted =
        Traces.saturate(c.policy(), 4, 300_000, MILLI / 5, 0, 0, new Random(1));

    assertThat(admitted).isNotEmpty();
    assertThat(Traces.judge(c.policy(), admitted, SLACK).overAdmitted()).isZero();
    assertThat(AdmissionBounds.violation(c.policy(), admitted)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void saturatedKey_stateForgottenEverySecond_countedAndRefusedByAdmissionBounds(SaturationCase c) {
    List<Admission> admitted =
        Traces.saturate(
            c.policy(), 4, 300_000, MILLI / 5, 1_000 * MILLI, 700 * MILLI, new Random(2));

    Exactness exactness = Traces.judge(c.policy(), admitted, SLACK);

    assertThat(exactness.overAdmitted()).isPositive();
    assertThat(exactness.worstKey()).isEqualTo("k0");
    assertThat(AdmissionBounds.violation(c.policy(), admitted)).isPresent();
  }

  @Test
  void randomTraces_whatIsCountedAdmissionBoundsRefuses_andCorrectOnesAreNeverBlamed() {
    List<SaturationCase> cases = cases();
    Seeds.run(
        "counted over-admission implies an AdmissionBounds violation",
        40,
        seed -> {
          Random random = new Random(seed);
          SaturationCase c = cases.get(random.nextInt(cases.size()));
          long gap = 200_000 + random.nextInt(2_000_000);
          long latency = random.nextInt(3 * (int) MILLI);
          boolean forget = random.nextBoolean();
          long every = forget ? (200 + random.nextInt(1_500)) * MILLI : 0;
          List<Admission> admitted =
              Traces.saturate(
                  c.policy(), 3, gap, latency, every, random.nextInt(1_000) * MILLI, random);

          long over = Traces.judge(c.policy(), admitted, SLACK).overAdmitted();

          if (over > 0) {
            assertThat(AdmissionBounds.violation(c.policy(), admitted))
                .as("%s: counted %d over-admitted", c.name(), over)
                .isPresent();
          }
          if (!forget) {
            assertThat(over).as(c.name() + " kept its state").isZero();
          }
        });
  }

  @Test
  void slidingWindow_freshStateMidWindow_countsTheSecondBudgetOnce() {
    // 10 per second. t=0.00..0.09 s: 10 admitted; at t=0.5 s the state is lost and 10 more are
    // admitted. Window 0 holds 20: the cut at its end is 20 + 0 - 10 = 10 over. Window 1 then sees
    // previous = 20 - 10 = 10 (as if the excess had been denied), and 5 admissions at t=1.9 s:
    // floor(10 × 1/16) + 5 = 5 <= 10, fine.
    Policy policy = Policy.of(10, Duration.ofSeconds(1));
    long start = alignedSecond();
    List<Admission> admitted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      admitted.add(instant(start + i * 10 * MILLI));
      admitted.add(instant(start + 500 * MILLI + i * MILLI));
    }
    for (int i = 0; i < 5; i++) {
      admitted.add(instant(start + 1_900 * MILLI + i * MILLI));
    }

    Exactness e = Traces.judge(policy, admitted, 0);

    assertThat(e.overAdmitted()).isEqualTo(10);
    assertThat(e.admitted()).isEqualTo(25);
    assertThat(e.judged()).isEqualTo(25);
  }

  @Test
  void slidingWindow_previousWindowWeighs_earlyAdmissionsInTheNextOneAreOver() {
    // 10 per second: 10 at the end of window 0, then 10 right at the start of window 1, where the
    // estimate is still floor(10 × 15/16) = 9 after the first sub-window: 1 fits, 9 are over.
    Policy policy = Policy.of(10, Duration.ofSeconds(1));
    long start = alignedSecond();
    List<Admission> admitted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      admitted.add(instant(start + 900 * MILLI + i * MILLI));
      admitted.add(instant(start + 1_000 * MILLI + i * MILLI));
    }

    assertThat(Traces.judge(policy, admitted, 0).overAdmitted()).isEqualTo(9);
  }

  @Test
  void tokenBucket_twiceTheBurstAtOnce_theSecondBurstIsOver() {
    // Capacity 5, 10 per second: one sub-window (62.5 ms) refills 0.625 tokens, so 10 admissions
    // inside one sub-window may be at most 5.625: 5 are over. Half a second later the bucket has
    // refilled 5 tokens: 5 more fit.
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(10)
            .window(Duration.ofSeconds(1))
            .burst(5)
            .build();
    long start = alignedSecond();
    List<Admission> admitted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      admitted.add(instant(start + i * MILLI));
    }
    for (int i = 0; i < 5; i++) {
      admitted.add(instant(start + 600 * MILLI + i * MILLI));
    }

    assertThat(Traces.judge(policy, admitted, 0).overAdmitted()).isEqualTo(5);
  }

  @Test
  void tokenBucket_sustainedRateOverALongInterval_fits_andTwiceTheRateDoesNot() {
    // 100 per second, capacity 100, 10 s: a correct bucket admits at most 100 + 1,000.
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(100)
            .window(Duration.ofSeconds(1))
            .burst(100)
            .build();
    long start = alignedSecond();
    List<Admission> atRate = new ArrayList<>();
    List<Admission> twice = new ArrayList<>();
    for (int i = 0; i < 1_100; i++) {
      atRate.add(instant(start + i * 9 * MILLI)); // 111/s for 9.9 s: 100 + 9.9 × 100 = 1,090
    }
    for (int i = 0; i < 2_000; i++) {
      twice.add(instant(start + i * 5 * MILLI)); // 200/s for 10 s
    }

    long overAtRate = Traces.judge(policy, atRate, 0).overAdmitted();
    long overTwice = Traces.judge(policy, twice, 0).overAdmitted();

    assertThat(overAtRate).isBetween(0L, 20L);
    assertThat(overTwice).isBetween(880L, 910L); // 2,000 - (100 + 10 s × 100) - rounding
  }

  @Test
  void straddlingAdmissions_areNotJudged() {
    Policy policy = Policy.of(1, Duration.ofSeconds(1));
    long edge = alignedSecond() + 62_500_000L; // the end of the first sub-window
    List<Admission> admitted = List.of(new Admission(edge - MILLI, edge + MILLI));

    Exactness e = Traces.judge(policy, admitted, 0);

    assertThat(e.admitted()).isEqualTo(1);
    assertThat(e.judged()).isZero();
    assertThat(e.judgedShare()).isZero();
  }

  @Test
  void of_algorithmWithoutACounterBound_isRefused() {
    Policy log =
        Policy.builder()
            .algorithm(Algorithm.SLIDING_LOG)
            .limit(10)
            .window(Duration.ofSeconds(1))
            .build();
    Policy odd = Policy.of(10, Duration.ofNanos(1_000_000_001L));

    assertThatThrownBy(() -> AdmissionBound.of(log)).hasMessageContaining("sliding_log");
    assertThatThrownBy(() -> AdmissionBound.of(odd)).hasMessageContaining("multiple of 16");
  }

  private static long alignedSecond() {
    return ORIGIN - Math.floorMod(ORIGIN, 1_000_000_000L) + 1_000_000_000L;
  }

  /** An admission sent and answered within 100 µs. */
  private static Admission instant(long at) {
    return new Admission(at, at + 100_000);
  }
}
