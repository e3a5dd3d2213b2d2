package dev.sluice.bench.load;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * A round's latency distribution, as far as the report reads it: percentiles in microseconds. The
 * Java load driver keeps a full histogram; an external generator (wrk) reports only the percentiles
 * it printed.
 */
public interface Latency {

  /** The latency at {@code percentile} (0..100), in microseconds. */
  double percentileMicros(double percentile);

  /** A histogram of nanoseconds. */
  static Latency of(Histogram nanos) {
    return new Recorded(nanos);
  }

  /**
   * Only the given percentiles (percentile to microseconds); asking for another one is a harness
   * bug and fails.
   */
  static Latency percentiles(Map<Double, Double> micros) {
    return new Printed(new TreeMap<>(micros));
  }

  /** Backed by the load driver's merged HdrHistogram. */
  record Recorded(Histogram nanos) implements Latency {
    @Override
    public double percentileMicros(double percentile) {
      return nanos.getValueAtPercentile(percentile) / 1_000.0;
    }
  }

  /** Percentiles an external generator printed. */
  record Printed(TreeMap<Double, Double> micros) implements Latency {
    @Override
    public double percentileMicros(double percentile) {
      Double value = micros.get(percentile);
      if (value == null) {
        throw new IllegalArgumentException(
            "p" + percentile + " was not reported; known: " + micros.keySet());
      }
      return value;
    }
  }
}
