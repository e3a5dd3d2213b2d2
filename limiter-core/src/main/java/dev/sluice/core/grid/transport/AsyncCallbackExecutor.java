package dev.sluice.core.grid.transport;

import com.hazelcast.internal.util.ConcurrencyUtil;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Gives Hazelcast's internal async callbacks a pool on small machines.
 *
 * <p>Hazelcast 5.7 completes every {@code submitToKey}/{@code submitToKeys} future through one
 * internal callback on its default async executor, whatever executor the caller passes on. That
 * executor is the common {@link ForkJoinPool} when the pool's parallelism is above 1, and otherwise
 * (on any machine with 2 CPUs or fewer, the JDK makes it 1) an executor that starts a new thread
 * per task. Measured on 2 cores: async decisions fell to about 3,000/s, and a client whose calls
 * carry a timeout, which must be asynchronous, was held to that rate.
 *
 * <p>Where that thread-per-task default is in force, Sluice installs a small shared pool instead,
 * once per JVM, the first time a member or client is configured for Sluice. The setting is JVM-wide
 * (it is Hazelcast's own static default), so it is only ever replaced where the default was the
 * pathological one; a JVM started with {@code
 * -Djava.util.concurrent.ForkJoinPool.common.parallelism=N} (N > 1) is left alone.
 */
public final class AsyncCallbackExecutor {
  /** Enough for the callbacks' short hand-offs; more threads only add switching on 2 cores. */
  private static final int PARALLELISM = 2;

  private static boolean installed;

  private AsyncCallbackExecutor() {}

  /**
   * Hazelcast's default async executor, after installing the pool where the default was the
   * thread-per-task one: the executor on which Sluice completes asynchronous answers.
   */
  static Executor hazelcastDefault() {
    installIfThreadPerTask();
    return ConcurrencyUtil.getDefaultAsyncExecutor();
  }

  public static synchronized void installIfThreadPerTask() {
    if (installed || ForkJoinPool.getCommonPoolParallelism() > 1) {
      return;
    }
    // asyncMode: callbacks are independent tasks, processed in arrival order; workers are daemons.
    ConcurrencyUtil.setDefaultAsyncExecutor(
        new ForkJoinPool(PARALLELISM, ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true));
    installed = true;
  }
}
