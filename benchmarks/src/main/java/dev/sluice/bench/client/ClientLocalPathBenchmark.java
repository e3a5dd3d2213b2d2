package dev.sluice.bench.client;

import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decisions per second on the client's local paths, no network:
 *
 * <ul>
 *   <li>{@code deniedCacheHit}: the attack path. One key is denied for an hour; every call is
 *       answered by the denied-until cache (a Caffeine lookup, a comparison, a {@code Decision} and
 *       a Micrometer counter increment). Target: 10 M decisions/s.
 *   <li>{@code hotKeyCoalesced} / {@code hotKeyDirect}: one key with room to spare, the limiter in
 *       the same JVM ({@link LocalRateLimiter}), through the client with and without coalescing:
 *       the coalescer's own cost when the limiter answers at once.
 * </ul>
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar ClientLocalPathBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClientLocalPathBenchmark {
  private SluiceClient denying;
  private SluiceClient coalescing;
  private SluiceClient direct;

  @Setup
  public void setUp() {
    LocalRateLimiter limiter =
        LocalRateLimiter.builder()
            .rules(
                List.of(
                    new Rule("attack", Policy.of(1, Duration.ofHours(1))),
                    new Rule("hot", Policy.of(1_000_000_000L, Duration.ofDays(30)))))
            .build();
    denying = SluiceClient.wrap(limiter);
    denying.tryAcquire("attack", "203.0.113.7"); // allowed
    Decision denied = denying.tryAcquire("attack", "203.0.113.7"); // denied by the limiter
    if (denied.allowed() || denied.decidedBy() != Decision.DecidedBy.LIMITER) {
      throw new IllegalStateException("set-up expected a denial by the limiter, got " + denied);
    }
    coalescing = SluiceClient.builder().deniedCacheSize(0).wrap(limiter);
    direct = SluiceClient.builder().deniedCacheSize(0).coalescing(false).wrap(limiter);
  }

  @Benchmark
  public Decision deniedCacheHit() {
    return denying.tryAcquire("attack", "203.0.113.7");
  }

  @Benchmark
  @Threads(2)
  public Decision deniedCacheHitTwoThreads() {
    return denying.tryAcquire("attack", "203.0.113.7");
  }

  @Benchmark
  @Threads(2)
  public Decision hotKeyCoalesced() {
    return coalescing.tryAcquire("hot", "key");
  }

  @Benchmark
  @Threads(2)
  public Decision hotKeyDirect() {
    return direct.tryAcquire("hot", "key");
  }
}
