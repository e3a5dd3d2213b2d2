package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Three members × 32 threads on one key, the clock frozen: exactly the policy's capacity is
 * admitted, for every algorithm. Two members call through batched limiters, one through the direct
 * path, so both race on the key.
 */
class GridExactnessTest {
  private static final int LIMIT = 100;
  private static final int THREADS_PER_MEMBER = 32;
  private static final int CALLS_PER_THREAD = 8;

  private static GridTestCluster cluster;
  private static List<GridRateLimiter> limiters;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(3);
    limiters =
        List.of(
            cluster.limiter(0),
            cluster.limiter(1),
            cluster.limiter(
                cluster.members.get(2), GridRateLimiter.Options.defaults().withBatching(false)));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /**
   * Every algorithm: within one frozen instant each admits exactly its capacity (the window
   * algorithms and concurrency their limit, the rate algorithms their burst's worth, the leaky
   * bucket its queue), however the requests race.
   */
  static Stream<Algorithm> everyAlgorithm() {
    return Stream.of(Algorithm.values());
  }

  private static Policy policy(Algorithm algorithm) {
    return Policy.builder().algorithm(algorithm).limit(LIMIT).window(Duration.ofHours(1)).build();
  }

  @ParameterizedTest
  @MethodSource("everyAlgorithm")
  void threeMembersThirtyTwoThreadsOneKey_frozenClock_admitsExactlyLimit(Algorithm algorithm)
      throws Exception {
    String rule = "exact-" + algorithm.wireName().replace('_', '-');
    limiters.get(0).rules().put(new Rule(rule, policy(algorithm)));
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (GridRateLimiter limiter : limiters) {
      for (int t = 0; t < THREADS_PER_MEMBER; t++) {
        Thread thread =
            new Thread(
                () -> {
                  try {
                    start.await();
                    for (int i = 0; i < CALLS_PER_THREAD; i++) {
                      if (limiter.tryAcquire(rule, "hot").allowed()) {
                        admitted.incrementAndGet();
                      }
                    }
                  } catch (Exception e) {
                    failures.incrementAndGet();
                  }
                });
        thread.start();
        threads.add(thread);
      }
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(failures).hasValue(0);
    // 3 × 32 × 8 = 768 attempts on one key within one frozen instant.
    assertThat(admitted).hasValue((int) LimiterAlgorithm.of(policy(algorithm)).capacity());
  }
}
