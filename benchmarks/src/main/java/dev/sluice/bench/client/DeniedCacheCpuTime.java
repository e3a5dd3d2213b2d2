package dev.sluice.bench.client;

import dev.sluice.bench.Usage;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;

/**
 * The denied-until cache's attack path per CPU-second of one thread: on a machine whose cores are
 * shared (CI, a laptop running other work) JMH's wall-clock throughput measures the neighbours as
 * much as the code; the thread's CPU time does not. Runs 5 rounds of 20 M decisions after a warm-up
 * and prints decisions per wall second and per CPU second of the calling thread.
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.bench.client.DeniedCacheCpuTime
 * </pre>
 */
public final class DeniedCacheCpuTime {
  static final String USAGE =
      """
      ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh
      java -cp benchmarks/target/benchmarks.jar dev.sluice.bench.client.DeniedCacheCpuTime
      """;

  private DeniedCacheCpuTime() {}

  public static void main(String[] args) {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    LocalRateLimiter limiter =
        LocalRateLimiter.builder()
            .rules(List.of(new Rule("attack", Policy.of(1, Duration.ofHours(1)))))
            .build();
    SluiceClient client = SluiceClient.wrap(limiter);
    client.tryAcquire("attack", "203.0.113.7");
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int round = -2; round < 5; round++) {
      int n = 20_000_000;
      long cpu0 = threads.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        Decision d = client.tryAcquire("attack", "203.0.113.7");
        sink += d.retryAfterNanos();
      }
      long cpu = threads.getCurrentThreadCpuTime() - cpu0;
      long wall = System.nanoTime() - wall0;
      if (round >= 0) {
        System.out.printf(
            "round %d: %.1f M decisions/s wall, %.1f M decisions per CPU-second (%.1f ns each)%n",
            round, n * 1e3 / wall, n * 1e3 / cpu, (double) cpu / n);
      }
    }
    System.out.println("(sink " + (sink & 1) + ")");
  }
}
