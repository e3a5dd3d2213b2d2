package dev.sluice.bench.jmh;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Nanoseconds per decision of each algorithm on one key: the pure {@code apply(state, now, 1)},
 * single thread, no contention, no map. The policy is 1,000 per second (sliding_buckets: 60 buckets
 * of 1/60 s) and simulated time advances 900 µs per call, so the key runs about 11 % over its rate:
 * mostly admitted, a steady share denied, and every window and bucket roll that traffic at that
 * rate causes.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar AlgorithmBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AlgorithmBenchmark {
  private static final long STEP_NANOS = 900_000L;

  @Param({
    "sliding_window",
    "fixed_window",
    "sliding_log",
    "sliding_buckets",
    "token_bucket",
    "gcra",
    "leaky_bucket"
  })
  public String algorithm;

  private LimiterAlgorithm limiter;
  private long[] state;
  private long nowNanos;

  @Setup
  public void setUp() {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.fromWireName(algorithm))
            .limit(1_000)
            .window(Duration.ofSeconds(1))
            .build();
    limiter = LimiterAlgorithm.of(policy);
    state = limiter.newState();
    nowNanos = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
  }

  @Benchmark
  public Decision decide() {
    nowNanos += STEP_NANOS;
    return limiter.apply(state, nowNanos, 1);
  }
}
