package dev.sluice.bench.load.exactness;

import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Admissions of one saturated key as the load harness observes them, from Sluice's own pure
 * algorithms on a simulated timeline: a correct limiter, and one that forgets its state at given
 * moments (issue 15's defect: a state that expired while it still counted).
 */
final class Traces {
  static final long ORIGIN = 1_790_000_000_123_456_789L;
  static final long MILLI = 1_000_000L;

  private Traces() {}

  /**
   * {@code seconds} of a request every {@code gapNanos}, each answered 0 to {@code maxLatencyNanos}
   * after it was sent and decided in between; the state is dropped whenever the decision crosses
   * {@code forgetEveryNanos} (0: never), offset by {@code forgetPhaseNanos}.
   */
  static List<Admission> saturate(
      Policy policy,
      double seconds,
      long gapNanos,
      long maxLatencyNanos,
      long forgetEveryNanos,
      long forgetPhaseNanos,
      Random random) {
    LimiterAlgorithm algorithm = LimiterAlgorithm.of(policy);
    long[] state = algorithm.newState();
    List<Admission> admitted = new ArrayList<>();
    long lastEpoch = Long.MIN_VALUE;
    long end = ORIGIN + (long) (seconds * 1e9);
    for (long sent = ORIGIN; sent < end; sent += gapNanos) {
      long answered = sent + (long) (random.nextDouble() * maxLatencyNanos);
      long decided = sent + (long) (random.nextDouble() * (answered - sent));
      if (forgetEveryNanos > 0) {
        long epoch = Math.floorDiv(decided - forgetPhaseNanos, forgetEveryNanos);
        if (lastEpoch != Long.MIN_VALUE && epoch != lastEpoch) {
          state = algorithm.newState();
        }
        lastEpoch = epoch;
      }
      if (algorithm.apply(state, decided, 1).allowed()) {
        admitted.add(new Admission(sent, answered));
      }
    }
    return admitted;
  }

  /** What the harness counts over {@code admissions} of one key, judged against {@code policy}. */
  static Exactness judge(Policy policy, List<Admission> admissions, long slackNanos) {
    AdmissionBound bound = AdmissionBound.of(policy);
    AdmissionTally tally = new AdmissionTally(bound.subWindowNanos(), slackNanos, ORIGIN);
    for (Admission a : admissions) {
      tally.record(0, a.sentNanos(), a.answeredNanos());
    }
    return Exactness.judge(List.of(tally), bound, key -> "k" + key);
  }
}
