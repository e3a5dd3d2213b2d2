package dev.sluice.bench.jmh;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.core.stats.RuleTally;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the console's stats add to each decision a node's front ends make (docs/operations.md, "What
 * the console costs"): the work {@code DecisionMetrics} does for {@link NodeStats} on top of its
 * Micrometer counters, with two threads deciding at once as on a 2-core node.
 *
 * <ul>
 *   <li>{@code allowed}: an allowed decision, one striped counter increment;
 *   <li>{@code denied}: a denial of one of 1,000 keys: the counter, the compare-and-set into the
 *       sketch's buffer, and the share of the buffer's drains into the Space-Saving sketch that the
 *       deciding threads do when they find it half full;
 *   <li>{@code latency}: a timed decision's latency into the per-second histogram.
 * </ul>
 *
 * The ticker runs as in a node (a tick a second drains the buffer too).
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar ConsoleStatsBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class ConsoleStatsBenchmark {
  private static final int KEYS = 1_000;

  private final Decision allow = Decision.allow(100, 50, 1_000_000_000L);
  private final Decision deny = Decision.deny(100, 0, 500_000_000L, 1_000_000_000L);
  private final Check[] checks = new Check[KEYS];
  private NodeStats stats;
  private RuleTally tally;

  @Setup(Level.Trial)
  public void setUp() {
    stats = NodeStats.started("bench");
    tally = stats.tally("login");
    for (int i = 0; i < KEYS; i++) {
      checks[i] = Check.of("login", "203.0.113." + i);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    stats.close();
  }

  /** Per thread: which key a denial is for. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
  }

  @Benchmark
  public void allowed(Cursor cursor) {
    tally.record(checks[cursor.next++ % KEYS], allow);
  }

  @Benchmark
  public void denied(Cursor cursor) {
    // Skewed: every second denial is of one key, the rest spread over 1,000.
    int i = cursor.next++;
    tally.record(checks[(i & 1) == 0 ? 0 : i % KEYS], deny);
  }

  @Benchmark
  public void latency(Cursor cursor) {
    stats.recordLatency(100_000 + (cursor.next++ & 0xffff));
  }
}
