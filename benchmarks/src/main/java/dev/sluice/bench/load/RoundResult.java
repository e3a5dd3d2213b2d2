package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One measured round of one contender: how many decisions in how long, their latency (as seen by
 * the calling thread), what they came back as and, where the scenario counts it, how exact the
 * admissions were.
 *
 * @param exactness null where the scenario does not count it or the contender enforces no rule
 */
public record RoundResult(
    long operations,
    long elapsedNanos,
    Latency latency,
    Map<Outcome, Long> outcomes,
    @Nullable String firstError,
    @Nullable Exactness exactness) {

  public RoundResult {
    outcomes = new EnumMap<>(outcomes.isEmpty() ? Map.of(Outcome.ERROR, 0L) : outcomes);
  }

  /** Decisions per second over the whole round, wall clock from start signal to last thread. */
  public double throughputPerSecond() {
    return perSecond(operations);
  }

  /** Admissions per second over the round. */
  public double admittedPerSecond() {
    return perSecond(count(Outcome.ALLOWED) + count(Outcome.ALLOWED_LOCALLY));
  }

  private double perSecond(long count) {
    return elapsedNanos == 0 ? 0 : count * 1e9 / elapsedNanos;
  }

  /** A latency percentile in microseconds. */
  public double percentileMicros(double percentile) {
    return latency.percentileMicros(percentile);
  }

  public long count(Outcome outcome) {
    return outcomes.getOrDefault(outcome, 0L);
  }
}
