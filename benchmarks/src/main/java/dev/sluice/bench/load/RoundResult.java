package dev.sluice.bench.load;

import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One measured round of one contender: how many decisions in how long, their latency histogram
 * (nanoseconds, as seen by the calling thread), and what they came back as.
 */
public record RoundResult(
    long operations,
    long elapsedNanos,
    Histogram latencyNanos,
    Map<Outcome, Long> outcomes,
    String firstError) {

  public RoundResult {
    outcomes = new EnumMap<>(outcomes.isEmpty() ? Map.of(Outcome.ERROR, 0L) : outcomes);
  }

  /** Decisions per second over the whole round, wall clock from start signal to last thread. */
  public double throughputPerSecond() {
    return elapsedNanos == 0 ? 0 : operations * 1e9 / elapsedNanos;
  }

  /** A latency percentile in microseconds. */
  public double percentileMicros(double percentile) {
    return latencyNanos.getValueAtPercentile(percentile) / 1_000.0;
  }

  public long count(Outcome outcome) {
    return outcomes.getOrDefault(outcome, 0L);
  }
}
