package dev.sluice.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The judge of {@link RealClockSaturationContract} can fail: on a simulated saturated key it
 * accepts what the algorithm admits, and refuses what the same algorithm admits when its state is
 * forgotten once a second (the defect the contract guards against).
 */
class AdmissionBoundsTest {
  private static final long ORIGIN = 1_790_000_000_123_456_789L;
  private static final long MILLI = 1_000_000L;

  static List<SaturationCase> cases() {
    return SaturationCase.all();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void saturatedKey_keptState_isWithinTheBound(SaturationCase c) {
    List<Admission> admitted = saturate(c.policy(), false, new Random(1));
    assertThat(AdmissionBounds.violation(c.policy(), admitted)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void saturatedKey_stateForgottenEverySecond_isRefused(SaturationCase c) {
    List<Admission> admitted = saturate(c.policy(), true, new Random(2));
    assertThat(AdmissionBounds.violation(c.policy(), admitted)).isPresent();
  }

  /**
   * Four seconds of a request every 0.3 ms, each answered 0 to 0.2 ms after it was sent and decided
   * somewhere in between; with {@code forget}, the state is dropped once a second (0.7 s into it,
   * so that it is not a window boundary where some algorithms forget their counts anyway), as an
   * entry whose expiry was rounded down to the second was.
   */
  private static List<Admission> saturate(Policy policy, boolean forget, Random random) {
    LimiterAlgorithm algorithm = LimiterAlgorithm.of(policy);
    long[] state = algorithm.newState();
    List<Admission> admitted = new ArrayList<>();
    long phase = 700 * MILLI;
    long secondOfLastDecision = (ORIGIN - phase) / 1_000_000_000L;
    for (long sent = ORIGIN; sent < ORIGIN + 4_000 * MILLI; sent += 300_000) {
      long answered = sent + (long) (random.nextDouble() * 0.2 * MILLI);
      long decided = sent + (long) (random.nextDouble() * (answered - sent));
      long second = (decided - phase) / 1_000_000_000L;
      if (forget && second != secondOfLastDecision) {
        state = algorithm.newState();
      }
      secondOfLastDecision = second;
      if (algorithm.apply(state, decided, 1).allowed()) {
        admitted.add(new Admission(sent, answered));
      }
    }
    return admitted;
  }
}
