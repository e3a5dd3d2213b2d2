package dev.sluice.core.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many threads on one key, the clock frozen inside one window: whatever the interleaving, exactly
 * {@code limit} requests are admitted. A lost update would admit more; a lock that drops requests
 * would admit fewer.
 */
class LocalRateLimiterConcurrencyTest {
  private static final int THREADS = 16;
  private static final int LIMIT = 1_000;
  private static final int ATTEMPTS_PER_THREAD = 150; // 2,400 attempts for 1,000 permits

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {
        "SLIDING_LOG",
        "FIXED_WINDOW",
        "TOKEN_BUCKET",
        "GCRA",
        "SLIDING_WINDOW",
        "SLIDING_BUCKETS"
      })
  void sixteenThreadsOnOneKey_frozenClock_admitExactlyTheLimit(Algorithm algorithm)
      throws Exception {
    // The first instant of a window, so that sliding_window has no previous window to weigh.
    ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    Policy policy =
        Policy.builder().algorithm(algorithm).limit(LIMIT).window(Duration.ofMinutes(1)).build();
    LocalRateLimiter limiter =
        LocalRateLimiter.builder()
            .timeSource(clock)
            .rules(List.of(new Rule("hot", policy)))
            .build();

    AtomicLong admitted = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
                    if (limiter.tryAcquire("hot", "one-key", 1).allowed()) {
                      admitted.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(20, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(admitted.get()).as(algorithm.wireName()).isEqualTo(LIMIT);
    assertThat(limiter.peek("hot", "one-key").remaining()).isZero();
  }

  /**
   * Every phase starts with all states expired, and a sweeper removes them while the threads
   * decide: a decision must never land on a state the sweep is retiring. Each key still admits
   * exactly its limit per phase.
   */
  @Test
  void sweepRacingDecisionsOnExpiredStates_losesNoPermit() throws Exception {
    ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.FIXED_WINDOW)
            .limit(50)
            .window(Duration.ofSeconds(1))
            .build();
    LocalRateLimiter limiter =
        LocalRateLimiter.builder()
            .timeSource(clock)
            .rules(List.of(new Rule("hot", policy)))
            .build();
    int keys = 4;
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      for (int phase = 0; phase < 20; phase++) {
        clock.advance(Duration.ofSeconds(3)); // past every state's time-to-live
        AtomicLongArray admitted = new AtomicLongArray(keys);
        AtomicBoolean deciding = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        Future<?> sweeper =
            pool.submit(
                () -> {
                  start.await();
                  while (deciding.get()) {
                    limiter.cleanUp();
                  }
                  return null;
                });
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          workers.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < 100; i++) {
                      for (int k = 0; k < keys; k++) {
                        if (limiter.tryAcquire("hot", "key-" + k, 1).allowed()) {
                          admitted.incrementAndGet(k);
                        }
                      }
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
          worker.get(20, TimeUnit.SECONDS);
        }
        deciding.set(false);
        sweeper.get(20, TimeUnit.SECONDS);
        for (int k = 0; k < keys; k++) {
          assertThat(admitted.get(k)).as("phase %d, key %d", phase, k).isEqualTo(50);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
