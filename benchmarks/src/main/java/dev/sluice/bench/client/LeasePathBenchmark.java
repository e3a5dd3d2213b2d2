package dev.sluice.bench.client;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import java.time.Duration;
import java.util.UUID;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decisions per second on one hot key answered from leases (issue 18, S3's path without the
 * network): a member alone in its cluster on loopback, its {@link GridRateLimiter} holding leases
 * of the key it owns, 16 threads on one key under a limit nothing reaches (10^9 per 30 days).
 *
 * <ul>
 *   <li>{@code limiter}: the member's limiter itself, as an embedded application calls it.
 *   <li>{@code client}: the same limiter behind the SDK's chain ({@link SluiceClient#wrap}:
 *       metrics, denied-until cache, failure policy, coalescing), the code a client runs for a
 *       lease answer.
 * </ul>
 *
 * Lease asks still go to the owner (an entry processor on this member, no network hop), so the
 * figures include how often a lease runs out and how long the threads wait for the next one.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar LeasePathBenchmark -f 1 -wi 3 -i 5 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(16)
public class LeasePathBenchmark {
  private HazelcastInstance member;
  private GridRateLimiter limiter;
  private RateLimiter client;

  @Setup
  public void setUp() {
    Config config = new Config().setClusterName("lease-path-" + UUID.randomUUID());
    config.getNetworkConfig().setPort(15_901).setPortAutoIncrement(true);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    SluiceHazelcast.configure(config, TimeSource.system());
    member = Hazelcast.newHazelcastInstance(config);
    limiter = new GridRateLimiter(member, GridRateLimiter.Options.defaults());
    limiter.rules().put(new Rule("hot", Policy.of(1_000_000_000L, Duration.ofDays(30))));
    // The load harness's call timeout: a lease ask that waits on a loaded machine must not open
    // the breaker and have the failure policy answer instead of the grid.
    client = SluiceClient.builder().callTimeout(Duration.ofSeconds(10)).wrap(limiter);
  }

  @TearDown
  public void tearDown() {
    limiter.close();
    member.shutdown();
  }

  @Benchmark
  public Decision limiter() {
    return decided(limiter.tryAcquire("hot", "key"));
  }

  @Benchmark
  public Decision client() {
    return decided(client.tryAcquire("hot", "key"));
  }

  /** Fails the run on an answer that did not come from the grid or a lease. */
  private static Decision decided(Decision decision) {
    if (!decision.allowed()
        || (decision.decidedBy() != Decision.DecidedBy.LEASE
            && decision.decidedBy() != Decision.DecidedBy.LIMITER)) {
      throw new IllegalStateException("not an admission by the grid or a lease: " + decision);
    }
    return decision;
  }
}
