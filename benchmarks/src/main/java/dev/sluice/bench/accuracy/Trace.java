package dev.sluice.bench.accuracy;

import java.util.List;

/**
 * A generated workload: for each source (a key: a user, an IP), the times of its requests in epoch
 * nanoseconds, ascending. Sources are independent keys, so they are replayed one at a time.
 *
 * @param name short name used in tables, e.g. {@code steady-poisson}
 * @param description what the trace models, one sentence
 * @param seed the seed it was generated from: the same seed gives the same trace
 * @param limit the threshold the trace is judged against: permits per window
 * @param windowNanos the window length
 * @param sources request times per source
 */
public record Trace(
    String name,
    String description,
    long seed,
    long limit,
    long windowNanos,
    List<long[]> sources) {

  public long requests() {
    long total = 0;
    for (long[] times : sources) {
      total += times.length;
    }
    return total;
  }
}
