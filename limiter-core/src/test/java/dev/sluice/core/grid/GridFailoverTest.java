package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Member loss and migration under load, the clock frozen so no key refills.
 *
 * <h2>How much over-admission is possible</h2>
 *
 * With backup count 1 a decision is lost only if its owner dies after answering and before the
 * backup stored the new state; then the promoted backup is one step behind and re-grants that
 * permit. An owner can only be between "answered" and "backed up" for calls that are in flight at
 * the moment it dies, and each caller thread has at most one call in flight, so the over-admission
 * is at most the number of calling threads, summed over all keys.
 *
 * <p>The opposite error is possible too, and safe: a call whose owner applied it and replicated the
 * backup but died before the answer left is retried by Hazelcast on the new owner, which applies it
 * once more. The permit is spent twice and granted once, so a key may admit up to one in-flight
 * call per thread <em>fewer</em> than its limit. A limiter may err toward denying; it must never
 * hand out a fresh budget. Migration (a member joining) moves state with its replica versions and
 * loses nothing: it must never admit more than the limit, and may admit fewer only by a call sent
 * again across the migration, as above.
 */
class GridFailoverTest {
  private static final int KEYS = 30;
  private static final int LIMIT = 100;
  private static final int THREADS = 16;

  /** Runs load from the first two members and, at a third of it, calls {@code disruption}. */
  private static long runLoad(
      GridTestCluster cluster, List<GridRateLimiter> callers, Runnable disruption)
      throws Exception {
    int attempts = KEYS * LIMIT * 2;
    int perThread = attempts / THREADS;
    AtomicInteger progress = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    ConcurrentHashMap<String, AtomicLong> admitted = new ConcurrentHashMap<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      GridRateLimiter limiter = callers.get(t % callers.size());
      int seed = t;
      Thread thread =
          new Thread(
              () -> {
                for (int i = 0; i < perThread; i++) {
                  String key = "k" + ((i * 7 + seed) % KEYS);
                  try {
                    if (limiter.tryAcquire("failover", key).allowed()) {
                      admitted.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    failures.incrementAndGet();
                  }
                  progress.incrementAndGet();
                }
              });
      thread.start();
      threads.add(thread);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (progress.get() < attempts / 3 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    disruption.run();
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(60));
    }
    assertThat(failures).as("calls that failed instead of deciding").hasValue(0);
    assertThat(admitted).hasSize(KEYS);
    long total = admitted.values().stream().mapToLong(AtomicLong::get).sum();
    for (AtomicLong perKey : admitted.values()) {
      // A fresh budget for any key would show as up to 2 × LIMIT.
      assertThat(perKey.get()).isBetween((long) LIMIT - THREADS, (long) LIMIT + THREADS);
    }
    return total - (long) KEYS * LIMIT;
  }

  private static void memberTerminated_countsSurvive(boolean batching) throws Exception {
    try (GridTestCluster cluster = GridTestCluster.start(3)) {
      GridRateLimiter.Options options = GridRateLimiter.Options.defaults().withBatching(batching);
      List<GridRateLimiter> callers =
          List.of(
              cluster.limiter(cluster.members.get(0), options),
              cluster.limiter(cluster.members.get(1), options));
      callers.get(0).rules().put(new Rule("failover", Policy.of(LIMIT, Duration.ofHours(1))));
      HazelcastInstance victim = cluster.members.get(2);
      long over = runLoad(cluster, callers, () -> victim.getLifecycleService().terminate());
      System.out.printf(
          "terminate, batching=%s: over-admitted %d of %d (bound %d)%n",
          batching, over, KEYS * LIMIT, THREADS);
      assertThat(over).isBetween((long) -THREADS, (long) THREADS);
    }
  }

  @Test
  void memberTerminatedMidLoad_directCalls_overAdmitAtMostInFlight() throws Exception {
    memberTerminated_countsSurvive(false);
  }

  @Test
  void memberTerminatedMidLoad_batchedCalls_overAdmitAtMostInFlight() throws Exception {
    memberTerminated_countsSurvive(true);
  }

  @Test
  void memberJoinsMidLoad_migrationLosesNothing() throws Exception {
    try (GridTestCluster cluster = GridTestCluster.start(2)) {
      List<GridRateLimiter> callers = List.of(cluster.limiter(0), cluster.limiter(1));
      callers.get(0).rules().put(new Rule("failover", Policy.of(LIMIT, Duration.ofHours(1))));
      long over = runLoad(cluster, callers, cluster::addMember);
      assertThat(cluster.members.get(2).getCluster().getMembers()).hasSize(3);
      // Seen once in CI: -1 of 3,000, a call sent again after its first attempt had counted.
      assertThat(over).isBetween((long) -THREADS, 0L);
    }
  }
}
