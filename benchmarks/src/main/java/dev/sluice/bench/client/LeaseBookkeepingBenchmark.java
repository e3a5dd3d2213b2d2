package dev.sluice.bench.client;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.lease.LeasePolicy;
import dev.sluice.core.local.LocalRateLimiter;
import java.util.SplittableRandom;
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
 * What leases add to a call that no lease answers, on S2's traffic: 10,000 uniform keys at 25,000
 * decisions a second, 2.5 a second per key, far from any lease. With leases on, the pipeline asks
 * the holder for a lease answer ({@link LeaseHolder#answer}: a map lookup that finds none) and
 * counts the key's heat ({@link LeaseHolder#wanted}: a second lookup, the counts under the key's
 * monitor, one clock read) before it sends the call; with leases off it does neither. S2 spends
 * about 80 µs of core time a decision on this machine (25,000 a second on two cores); this measures
 * the difference alone.
 *
 * <p>The holder runs on a simulated clock that advances 40 µs a call, so that each key sees S2's
 * rate whatever speed the benchmark runs at (at full speed every key would look hot and ask). One
 * thread: the work is per call, and S2's threads share no key's monitor for long.
 *
 * <ul>
 *   <li>{@code keyOnly}: draws the key, as both S2 rows do; the baseline.
 *   <li>{@code leasesOn}: the same, then the holder's two calls.
 * </ul>
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -jar benchmarks/target/benchmarks.jar LeaseBookkeepingBenchmark -f 1 -wi 3 -i 5 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class LeaseBookkeepingBenchmark {
  private static final int KEYS = 10_000;
  private static final long NANOS_PER_CALL = 40_000;

  private static final PolicyRef REF = Check.of("bench", "k", 1).ref();

  private final String[] stateKeys = new String[KEYS];
  private final SplittableRandom random = new SplittableRandom(0x511CE5L);
  private long simulatedNanos;
  private LeaseHolder holder;

  @Setup
  public void setUp() {
    for (int i = 0; i < KEYS; i++) {
      stateKeys[i] = Check.of("bench", "k" + i, 1).stateKey();
    }
    holder =
        new LeaseHolder(
            () -> simulatedNanos += NANOS_PER_CALL,
            LeasePolicy.DEFAULT,
            LocalRateLimiter.builder().build().stack().storage(), // no key here renews a lease
            null);
  }

  @Benchmark
  public int keyOnly() {
    return random.nextInt(KEYS);
  }

  @Benchmark
  public long leasesOn() {
    int i = random.nextInt(KEYS);
    Decision answer = holder.answer(REF, stateKeys[i], 1);
    if (answer != null) {
      throw new IllegalStateException("no lease was ever granted here");
    }
    // 0: as for a rule with no lease to the end of the window (a quiet key then asks for none).
    return holder.wanted(stateKeys[i], 1, 0, Policy.MAX_LEASE_NANOS).permits();
  }
}
