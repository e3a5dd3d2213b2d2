package dev.sluice.core.backend;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The executor a caller takes its asynchronous answer on ({@link
 * dev.sluice.core.RateLimiter#tryAcquireAllAsync(java.util.List, Executor)}), carried down the
 * stack with the call's {@link Deadline}. A layer that completes answers (the batching lanes, the
 * grid's batch delivery) completes them with a task on it instead of on its own callback pool, so
 * the answer reaches its caller in one hand-off; {@link #completing} makes sure of the rest.
 *
 * <p>Its tasks know they run on it: an answer that arrives while one of them runs (of any {@code
 * AnswerExecutor} over the same executor) is completed there and then, without a second task.
 */
public final class AnswerExecutor implements Executor {
  /** The caller's executor whose task runs on this thread now, if any. */
  private static final ThreadLocal<@Nullable Executor> RUNNING = new ThreadLocal<>();

  private final Executor executor;

  /**
   * @param executor the caller's: it must run its tasks on threads of its own (an event loop, a
   *     pool), never on the thread that calls {@code execute}
   */
  public AnswerExecutor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /**
   * Hands {@code task} to the caller's executor; where that refuses it (an event loop shutting
   * down), to the common pool: an answer never goes missing, nor does the lane that waits for it.
   */
  @Override
  public void execute(Runnable task) {
    try {
      executor.execute(
          () -> {
            Executor outer = RUNNING.get();
            RUNNING.set(executor);
            try {
              task.run();
            } finally {
              RUNNING.set(outer);
            }
          });
    } catch (RejectedExecutionException e) {
      ForkJoinPool.commonPool().execute(task);
    }
  }

  /** The caller's executor. */
  Executor target() {
    return executor;
  }

  /** Whether this thread runs a task of any caller's executor now. */
  static boolean runningAny() {
    return RUNNING.get() != null;
  }

  /** Whether this thread runs a task of the caller's executor now. */
  public boolean running() {
    return RUNNING.get() == executor;
  }

  /** Runs {@code task} here if this thread runs one of the executor's tasks, else as a task. */
  public void run(Runnable task) {
    if (running()) {
      task.run();
    } else {
      execute(task);
    }
  }

  /**
   * {@code answer}, completed on this executor: as it is where it is done already or completes in
   * one of this executor's tasks, otherwise with one more task.
   */
  public <T> CompletableFuture<T> completing(CompletableFuture<T> answer) {
    if (answer.isDone()) {
      return answer;
    }
    CompletableFuture<T> moved = new CompletableFuture<>();
    answer.whenComplete(
        (value, failure) ->
            run(
                () -> {
                  if (failure != null) {
                    moved.completeExceptionally(Futures.unwrap(failure));
                  } else {
                    moved.complete(value);
                  }
                }));
    return moved;
  }
}
