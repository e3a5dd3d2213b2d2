package dev.sluice.bench.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.accuracy.Replayer.Result;
import dev.sluice.core.Algorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Small traces through the generator and the replayer: seconds, not the report's minutes. */
class AccuracySmokeTest {
  private static final TraceGenerator GENERATOR =
      new TraceGenerator(20, Duration.ofSeconds(10), Duration.ofMinutes(2));

  private static List<Trace> smallTraces(long seed) {
    return List.of(
        GENERATOR.steadyPoisson(seed, 30),
        GENERATOR.burstyOnOff(seed, 30),
        GENERATOR.boundaryAttack(seed, 10),
        GENERATOR.manyKeys(seed, 100),
        GENERATOR.cloudflareMix(seed, 200));
  }

  @Test
  void generators_sameSeed_sameTrace_sortedWithinTheDuration() {
    List<Trace> first = smallTraces(42);
    List<Trace> again = smallTraces(42);
    List<Trace> other = smallTraces(43);
    long end = TraceGenerator.START_NANOS + Duration.ofMinutes(2).toNanos();
    for (int i = 0; i < first.size(); i++) {
      Trace trace = first.get(i);
      assertThat(trace.requests()).as(trace.name()).isPositive();
      assertThat(trace.requests()).isEqualTo(again.get(i).requests());
      assertThat(trace.sources().get(0)).isEqualTo(again.get(i).sources().get(0));
      assertThat(trace.sources().get(0))
          .as("seed 43 differs")
          .isNotEqualTo(other.get(i).sources().get(0));
      for (long[] times : trace.sources()) {
        for (int t = 0; t < times.length; t++) {
          assertThat(times[t]).isBetween(TraceGenerator.START_NANOS, end);
          if (t > 0) {
            assertThat(times[t]).isGreaterThanOrEqualTo(times[t - 1]);
          }
        }
      }
    }
  }

  @Test
  void replay_exactLog_judgesItselfWithoutError() {
    for (Trace trace : smallTraces(7)) {
      Result exact = Replayer.replay(trace, Algorithm.SLIDING_LOG);
      assertThat(exact.falseAllows()).as(trace.name()).isZero();
      assertThat(exact.falseDenies()).as(trace.name()).isZero();
      assertThat(exact.disagreementsWithIndependentLog()).isZero();
      assertThat(exact.overshoot()).isLessThanOrEqualTo(1.0);
      assertThat(exact.underThresholdLimited()).isZero();
      assertThat(exact.overThresholdMissed()).isZero();
      assertThat(exact.meanRateError()).isZero();
    }
  }

  @Test
  void replay_boundaryAttack_fixedWindowAdmitsTwiceTheLimit_slidingBucketsNeverOverAdmits() {
    Trace attack = GENERATOR.boundaryAttack(11, 10);

    Result fixed = Replayer.replay(attack, Algorithm.FIXED_WINDOW);
    Result buckets = Replayer.replay(attack, Algorithm.SLIDING_BUCKETS);
    Result sliding = Replayer.replay(attack, Algorithm.SLIDING_WINDOW);

    assertThat(fixed.overshoot()).isEqualTo(2.0);
    assertThat(fixed.falseAllows()).isPositive();
    assertThat(buckets.overshoot()).isLessThanOrEqualTo(1.0);
    assertThat(buckets.falseAllows()).isZero();
    assertThat(sliding.overshoot()).isLessThan(fixed.overshoot());
    assertThat(attack.sources()).hasSize(10);
    assertThat(fixed.sourcesOverThreshold()).isEqualTo(10);
  }

  @Test
  void replay_countsAddUp() {
    for (Trace trace : smallTraces(9)) {
      for (Algorithm algorithm : AccuracyReport.ALGORITHMS) {
        Result r = Replayer.replay(trace, algorithm);
        assertThat(r.requests()).isEqualTo(trace.requests());
        assertThat(r.admitted()).isBetween(0L, r.requests());
        assertThat(r.falseAllows() + r.falseDenies()).isLessThanOrEqualTo(r.requests());
        assertThat(r.sourcesUnderThreshold() + r.sourcesOverThreshold())
            .isEqualTo(trace.sources().size());
      }
    }
  }

  @Test
  void mostInTrailingWindow_countsTheHalfOpenWindow() {
    long[] times = {0, 5, 10, 14, 15, 30};
    // (5, 15] holds 10, 14, 15; (0, 10] holds 5, 10; 0 and 10 are never together in (t - 10, t].
    assertThat(Replayer.mostInTrailingWindow(times, 10)).isEqualTo(3);
    assertThat(Replayer.mostInTrailingWindow(new long[0], 10)).isZero();
  }

  @Test
  void markdown_namesTheCommandEveryTraceAndCloudflare() {
    List<Trace> traces = List.of(GENERATOR.cloudflareMix(1, 50));
    List<Result> results = new ArrayList<>();
    for (Algorithm algorithm : AccuracyReport.ALGORITHMS) {
      results.add(Replayer.replay(traces.get(0), algorithm));
    }
    String md = AccuracyReport.markdown(traces, results, 1.0);

    assertThat(md)
        .contains(AccuracyReport.COMMAND)
        .contains("cloudflare-mix")
        .contains("0.003 %")
        .contains("`sliding_buckets`");
  }
}
