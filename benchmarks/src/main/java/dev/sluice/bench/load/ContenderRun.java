package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Every measured round of one contender in one scenario, summarised the way the report needs it:
 * medians across rounds (robust to one disturbed round on a shared machine), the spread, and the
 * over-admissions summed over every measured round.
 *
 * <p>A contender that could not run carries no rounds and a {@code notRunReason}. The {@code group}
 * says which contenders compare with each other (the same generator, the same deployment shape):
 * the report prints Sluice/peer ratios only within a group.
 */
public record ContenderRun(
    String name, String group, List<RoundResult> rounds, @Nullable String notRunReason) {

  public ContenderRun {
    rounds = List.copyOf(rounds);
  }

  public static ContenderRun measured(String name, List<RoundResult> rounds) {
    return new ContenderRun(name, "", rounds, null);
  }

  public static ContenderRun measured(String name, String group, List<RoundResult> rounds) {
    return new ContenderRun(name, group, rounds, null);
  }

  public static ContenderRun notRun(String name, String reason) {
    return new ContenderRun(name, "", List.of(), reason);
  }

  public static ContenderRun notRun(String name, String group, String reason) {
    return new ContenderRun(name, group, List.of(), reason);
  }

  public boolean ran() {
    return notRunReason == null && !rounds.isEmpty();
  }

  public double medianThroughput() {
    return median(RoundResult::throughputPerSecond);
  }

  /** The median across rounds of admissions per second. */
  public double medianAdmitted() {
    return median(RoundResult::admittedPerSecond);
  }

  public double minThroughput() {
    return rounds.stream().mapToDouble(RoundResult::throughputPerSecond).min().orElse(0);
  }

  public double maxThroughput() {
    return rounds.stream().mapToDouble(RoundResult::throughputPerSecond).max().orElse(0);
  }

  /** (max - min) / median of the rounds' throughput, as a fraction; 0 with one round. */
  public double spread() {
    double median = medianThroughput();
    return median == 0 ? 0 : (maxThroughput() - minThroughput()) / median;
  }

  /** The median across rounds of a latency percentile, in microseconds. */
  public double medianPercentileMicros(double percentile) {
    return median(round -> round.percentileMicros(percentile));
  }

  /** Exactness summed over every measured round; empty where it was not counted. */
  public Optional<Exactness> exactness() {
    return rounds.stream()
        .map(RoundResult::exactness)
        .filter(Objects::nonNull)
        .reduce(Exactness::plus);
  }

  public long total(Outcome outcome) {
    return rounds.stream().mapToLong(round -> round.count(outcome)).sum();
  }

  public long totalOperations() {
    return rounds.stream().mapToLong(RoundResult::operations).sum();
  }

  /**
   * The share of decisions answered without a network hop: denials from a denied-until cache and
   * admissions from a lease.
   */
  public double localShare() {
    long total = totalOperations();
    return total == 0 ? 0 : (double) local() / total;
  }

  /** Decisions answered without a network hop. */
  long local() {
    return total(Outcome.DENIED_LOCALLY) + total(Outcome.ALLOWED_LOCALLY);
  }

  /** The share of calls that failed; the report flags a run with errors. */
  public double errorShare() {
    long total = totalOperations();
    return total == 0 ? 0 : (double) total(Outcome.ERROR) / total;
  }

  public @Nullable String firstError() {
    return rounds.stream()
        .map(RoundResult::firstError)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(null);
  }

  private double median(ToDoubleFunction<RoundResult> metric) {
    double[] values = rounds.stream().mapToDouble(metric).sorted().toArray();
    if (values.length == 0) {
      return 0;
    }
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }

  @Override
  public String toString() {
    if (!ran()) {
      return name + ": not run: " + notRunReason;
    }
    return String.format(
        Locale.ROOT,
        "%-34s %,12.0f /s (spread %4.1f %%)  p50 %8.1f us  p99 %8.1f us  p99.9 %9.1f us%s%s%s",
        name,
        medianThroughput(),
        spread() * 100,
        medianPercentileMicros(50),
        medianPercentileMicros(99),
        medianPercentileMicros(99.9),
        exactness()
            .map(
                e ->
                    String.format(
                        Locale.ROOT,
                        "  admitted %,.0f /s  over-admitted %,d",
                        medianAdmitted(),
                        e.overAdmitted()))
            .orElse(""),
        local() > 0 ? String.format(Locale.ROOT, "  local %.2f %%", localShare() * 100) : "",
        total(Outcome.ERROR) > 0
            ? String.format(Locale.ROOT, "  ERRORS %.2f %%", errorShare() * 100)
            : "");
  }
}
