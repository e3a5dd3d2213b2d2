package dev.sluice.core.stats;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decision latencies, recorded by the deciding threads without a lock and read once a second as
 * that second's count, mean, 99th percentile and maximum.
 *
 * <h2>Buckets</h2>
 *
 * A latency of {@code v} nanoseconds falls in bucket {@code 4e + s}, where {@code e =
 * floor(log2(v))} and {@code s} is the next two bits of {@code v}: four buckets per power of two,
 * each 25 % of its power wide (v = 300 µs = 300,000 ns: e = 18, 2^18 = 262,144, s = 0 → bucket 72,
 * which holds [262,144, 327,680)). The 99th percentile is the upper end of the bucket holding it,
 * clamped to the second's maximum: never below the true value, at most 25 % above it.
 *
 * <p>Each bucket is a {@link LongAdder}, so concurrent deciders do not contend; one record is three
 * striped additions. The tick keeps the previous cumulative counts and reads the second's by
 * difference.
 */
final class LatencyHistogram {
  private static final int SUB_BUCKET_BITS = 2;
  private static final int BUCKETS = 64 << SUB_BUCKET_BITS;

  private final LongAdder[] buckets = new LongAdder[BUCKETS];
  private final LongAdder totalNanos = new LongAdder();
  private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);

  // Owned by the tick.
  private final long[] previous = new long[BUCKETS];
  private long previousTotal;

  LatencyHistogram() {
    for (int i = 0; i < BUCKETS; i++) {
      buckets[i] = new LongAdder();
    }
  }

  /** Records one decision's latency; on the decision path. */
  void record(long nanos) {
    long v = Math.max(1, nanos);
    buckets[bucket(v)].increment();
    totalNanos.add(v);
    maxNanos.accumulate(v);
  }

  /**
   * What was recorded since the previous call: {@code [decisions, meanMicros, p99Micros,
   * maxMicros]}, micros rounded up so that a recorded latency never reads as 0.
   */
  int[] drainSecond() {
    long[] counts = new long[BUCKETS];
    long decisions = 0;
    for (int i = 0; i < BUCKETS; i++) {
      long cumulative = buckets[i].sum();
      counts[i] = cumulative - previous[i];
      previous[i] = cumulative;
      decisions += counts[i];
    }
    long total = totalNanos.sum();
    long nanos = total - previousTotal;
    previousTotal = total;
    long max = maxNanos.getThenReset();
    if (decisions == 0) {
      return new int[4];
    }
    long rank = (decisions * 99 + 99) / 100; // the ceil(0.99 n)-th smallest
    long seen = 0;
    long p99 = max;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        p99 = Math.min(max, upperBound(i));
        break;
      }
    }
    return new int[] {
      saturated(decisions), micros(nanos / decisions), micros(p99), micros(max),
    };
  }

  static int bucket(long v) {
    int e = 63 - Long.numberOfLeadingZeros(v);
    int sub = e < SUB_BUCKET_BITS ? 0 : (int) (v >>> (e - SUB_BUCKET_BITS)) & 3;
    return (e << SUB_BUCKET_BITS) + sub;
  }

  /** The largest value of bucket {@code b}, inclusive. */
  static long upperBound(int b) {
    int e = b >>> SUB_BUCKET_BITS;
    int sub = b & 3;
    if (e < SUB_BUCKET_BITS) {
      return (1L << (e + 1)) - 1;
    }
    if (e >= 62) {
      return Long.MAX_VALUE;
    }
    long width = 1L << (e - SUB_BUCKET_BITS);
    return (1L << e) + (sub + 1) * width - 1;
  }

  private static int micros(long nanos) {
    return saturated((nanos + 999) / 1000);
  }

  private static int saturated(long value) {
    return (int) Math.min(Integer.MAX_VALUE, value);
  }
}
