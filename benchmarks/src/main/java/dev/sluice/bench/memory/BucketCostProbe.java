package dev.sluice.bench.memory;

import dev.sluice.bench.Usage;
import dev.sluice.core.TimeSource;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What candidate (e) adds to a decision on the partition thread, without the grid: nanoseconds per
 * {@link BucketTable#decide} on a table of n keys (find the key, apply the algorithm, rebuild the
 * table), against decoding and encoding one key's 7-byte state alone (what a one-key-per-entry
 * candidate does). Single thread, after a warm-up; a rough figure, not a JMH benchmark.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.memory.BucketCostProbe
 * </pre>
 */
public final class BucketCostProbe {
  static final String USAGE =
      """
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.memory.BucketCostProbe
      """;

  private BucketCostProbe() {}

  public static void main(String[] args) {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    long now = TimeSource.system().nowNanos();
    for (int round = 0; round < 2; round++) {
      System.out.printf(Locale.ROOT, "%s%n", round == 0 ? "warm-up" : "measured");
      System.out.printf(Locale.ROOT, "  one key's state alone: %.0f ns%n", single(now));
      for (int n : new int[] {16, 64, 256, 1024}) {
        System.out.printf(Locale.ROOT, "  table of %4d keys: %.0f ns%n", n, table(n, now));
      }
    }
  }

  private static double single(long now) {
    byte[] stored =
        TightState.encode(
            new long[] {now - now % MemoryProbe.WINDOW_NANOS, 1, 0}, MemoryProbe.WINDOW_NANOS);
    int iterations = 2_000_000;
    long sink = 0;
    long start = System.nanoTime();
    for (int i = 0; i < iterations; i++) {
      long[] state = TightState.decode(stored, MemoryProbe.WINDOW_NANOS);
      state[1] = 1; // keep the state below the limit
      MemoryProbe.ALGORITHM.apply(state, now, 1);
      sink += TightState.encode(state, MemoryProbe.WINDOW_NANOS).length;
    }
    double ns = (System.nanoTime() - start) / (double) iterations;
    return sink == 42 ? -1 : ns;
  }

  private static double table(int keys, long now) {
    byte[] table = null;
    byte[][] subjects = new byte[keys][];
    for (int i = 0; i < keys; i++) {
      subjects[i] = MemoryProbe.subject(100_000 + i).getBytes(StandardCharsets.UTF_8);
      table =
          BucketTable.decide(
                  table, 1, subjects[i], now, 1, MemoryProbe.ALGORITHM, MemoryProbe.WINDOW_NANOS)
              .table();
    }
    SplittableRandom random = new SplittableRandom(1);
    int iterations = Math.max(20_000, 20_000_000 / keys);
    long sink = 0;
    long start = System.nanoTime();
    for (int i = 0; i < iterations; i++) {
      BucketTable.Result result =
          BucketTable.decide(
              table,
              1,
              subjects[random.nextInt(keys)],
              now,
              1,
              MemoryProbe.ALGORITHM,
              MemoryProbe.WINDOW_NANOS);
      sink += result.table() == null ? 0 : result.table().length; // not stored: counts stay low
    }
    double ns = (System.nanoTime() - start) / (double) iterations;
    return sink == 42 ? -1 : ns;
  }
}
