package dev.sluice.bench.jmh;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.List;
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
 * What one {@link LocalRateLimiter} call costs on top of the algorithm: rule lookup, key
 * validation, the per-key atomic {@code compute} in the state cache, expiry bookkeeping and the
 * system clock. Single thread, 10,000 keys in rotation (so the state map is not a one-entry special
 * case), a generous limit so most calls are admitted.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar LocalRateLimiterBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalRateLimiterBenchmark {
  private static final int KEYS = 10_000;

  @Param({"sliding_window", "token_bucket", "gcra"})
  public String algorithm;

  private LocalRateLimiter limiter;
  private String[] keys;
  private int next;

  @Setup
  public void setUp() {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.fromWireName(algorithm))
            .limit(1_000_000)
            .window(Duration.ofSeconds(1))
            .build();
    limiter =
        LocalRateLimiter.builder()
            .timeSource(TimeSource.system())
            .rules(List.of(new Rule("api", policy)))
            .build();
    keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "user-" + i;
    }
  }

  @Benchmark
  public Decision tryAcquire() {
    String key = keys[next];
    next = next + 1 == KEYS ? 0 : next + 1;
    return limiter.tryAcquire("api", key, 1);
  }

  @Benchmark
  public Decision peek() {
    String key = keys[next];
    next = next + 1 == KEYS ? 0 : next + 1;
    return limiter.peek("api", key);
  }
}
