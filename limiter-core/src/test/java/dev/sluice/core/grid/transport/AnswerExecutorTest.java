package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link GridRateLimiter#tryAcquireAllAsync(List, java.util.concurrent.Executor)} on three real
 * members, its batches through the per-owner lanes: the answer completes in one task on the
 * caller's executor (not through Hazelcast's callback pool first), never on a partition or response
 * thread, whether the key's owner is this member or another.
 */
class AnswerExecutorTest {
  private static final int CALLS = 60;

  private static GridTestCluster cluster;

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = GridTestCluster.start(3);
    cluster.limiter(0).rules().put(new Rule("many", Policy.of(1_000_000, Duration.ofMinutes(1))));
    cluster.awaitSafe();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /** A one-thread executor that counts its tasks, like a connection's event loop. */
  private static final class Loop implements java.util.concurrent.Executor {
    final ExecutorService thread =
        Executors.newSingleThreadExecutor(task -> new Thread(task, "answers-loop"));
    final AtomicInteger tasks = new AtomicInteger();

    @Override
    public void execute(Runnable task) {
      tasks.incrementAndGet();
      thread.execute(task);
    }
  }

  @Test
  void eachAnswerCompletesInOneTaskOnTheCallersExecutor() throws Exception {
    GridRateLimiter limiter = cluster.limiter(0);
    Loop loop = new Loop();
    List<String> threads = new ArrayList<>();
    try {
      for (int i = 0; i < CALLS; i++) {
        List<Check> checks = List.of(Check.of("many", "answer-key-" + i, 1));
        // Called from a task of the loop, its dependent added in the same task, as a connection's
        // handler does: the answer cannot complete on the loop before the dependent is there.
        CompletableFuture<String> answeredOn = new CompletableFuture<>();
        loop.execute(
            () ->
                limiter
                    .tryAcquireAllAsync(checks, loop)
                    .whenComplete(
                        (decisions, failure) -> {
                          if (failure != null) {
                            answeredOn.completeExceptionally(failure);
                          } else {
                            assertThat(decisions).extracting(Decision::allowed).containsOnly(true);
                            answeredOn.complete(Thread.currentThread().getName());
                          }
                        }));
        threads.add(answeredOn.get(10, TimeUnit.SECONDS));
      }
    } finally {
      loop.thread.shutdownNow();
    }

    assertThat(threads).containsOnly("answers-loop");
    // One task to call, one to answer: the batch's answer came to the loop straight from the
    // thread that finished it, with no task of its own before it on Hazelcast's pool.
    assertThat(loop.tasks.get()).isEqualTo(2 * CALLS);
  }

  @Test
  void anAnswerWithoutAnExecutorNeverCompletesOnAPartitionOrResponseThread() throws Exception {
    GridRateLimiter limiter = cluster.limiter(0);
    for (int i = 0; i < CALLS; i++) {
      CompletableFuture<String> on = new CompletableFuture<>();
      limiter
          .tryAcquireAllAsync(List.of(Check.of("many", "plain-key-" + i, 1)))
          .whenComplete((decisions, failure) -> on.complete(Thread.currentThread().getName()));
      String thread = on.get(10, TimeUnit.SECONDS);
      assertThat(thread).doesNotContain("partition-operation").doesNotContain("response");
    }
  }
}
