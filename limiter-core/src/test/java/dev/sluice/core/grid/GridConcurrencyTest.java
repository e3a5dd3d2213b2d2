package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A concurrency rule on three members, on the manual clock: many threads on every member acquire,
 * hold and release permits of one key, and the permits held at once never exceed the limit; a
 * member that dies holding permits (it never releases them) loses them at their permitTtl.
 */
class GridConcurrencyTest {
  private static final int LIMIT = 5;
  private static final Policy SLOTS =
      Policy.builder()
          .algorithm(Algorithm.CONCURRENCY)
          .limit(LIMIT)
          .window(Duration.ofSeconds(30))
          .build();

  private GridTestCluster cluster;

  @BeforeEach
  void start() {
    cluster = GridTestCluster.start(3);
    cluster.limiter(0).rules().put(new Rule("slots", SLOTS));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /**
   * 3 members × 6 threads × 150 rounds of acquire, hold, release. The clock stands still, so no
   * permit expires: the count below rises only after an admission and falls before its release,
   * hence never below what the owner holds, and it must stay within the limit.
   */
  @Test
  void threeMembersManyThreads_permitsHeldNeverExceedTheLimit() throws Exception {
    List<GridRateLimiter> limiters =
        List.of(cluster.limiter(0), cluster.limiter(1), cluster.limiter(2));
    AtomicInteger held = new AtomicInteger();
    AtomicInteger mostHeld = new AtomicInteger();
    AtomicLong admitted = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(18);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 18; t++) {
        GridRateLimiter limiter = limiters.get(t % 3);
        work.add(
            threads.submit(
                () -> {
                  for (int round = 0; round < 150; round++) {
                    Decision decision = limiter.tryAcquire("slots", "shared");
                    if (decision.allowed()) {
                      admitted.incrementAndGet();
                      mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                      held.decrementAndGet();
                      limiter.releasePermit("slots", "shared", decision.permitId());
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> one : work) {
        one.get(120, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(mostHeld.get()).isBetween(1, LIMIT);
    assertThat(admitted.get()).isGreaterThan(LIMIT);
    assertThat(limiters.get(0).peek("slots", "shared").remaining())
        .as("every permit given back")
        .isEqualTo(LIMIT);
  }

  /** A holder that dies never releases: the permits come back at their permitTtl, not before. */
  @Test
  void killedHolder_permitsComeBackAfterPermitTtl() {
    GridRateLimiter survivor = cluster.limiter(0);
    GridRateLimiter doomed = cluster.limiter(2);
    for (int i = 0; i < LIMIT; i++) {
      assertThat(doomed.tryAcquire("slots", "job").allowed()).isTrue();
    }
    cluster.members.get(2).getLifecycleService().terminate();

    Decision denied = survivor.tryAcquire("slots", "job");
    assertThat(denied.allowed()).as("the dead holder's permits are still counted").isFalse();
    assertThat(denied.retryAfterMillis()).isEqualTo(30_000);
    cluster.clock.advance(Duration.ofSeconds(30).minusNanos(1));
    assertThat(survivor.tryAcquire("slots", "job").allowed()).isFalse();
    cluster.clock.advance(Duration.ofNanos(1));
    for (int i = 0; i < LIMIT; i++) {
      assertThat(survivor.tryAcquire("slots", "job").allowed()).as("permit %d", i + 1).isTrue();
    }
  }
}
