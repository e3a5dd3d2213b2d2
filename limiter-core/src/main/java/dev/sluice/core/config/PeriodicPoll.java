package dev.sluice.core.config;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs a check every interval on its own daemon thread, from {@link #start()} until {@link
 * #close()}: how the node and the Spring Boot starter notice edits to the files they hot-reload
 * (the rules file, Envoy's config). Polling rather than a file-system watch because a Kubernetes
 * ConfigMap volume changes by swapping a symbolic link, which watches miss, and because a file on a
 * network volume may send no events at all.
 */
public final class PeriodicPoll implements AutoCloseable {
  private final String threadName;
  private final Duration interval;
  private final Runnable check;
  private final Object lock = new Object();
  private @Nullable ScheduledExecutorService poller;

  /**
   * @param threadName the name of the polling thread, as thread dumps show it
   * @param check what to run each time; it must not throw (a throw would end the polling)
   */
  public PeriodicPoll(String threadName, Duration interval, Runnable check) {
    this.threadName = threadName;
    this.interval = interval;
    this.check = check;
  }

  /** Starts polling, the first check one interval from now; does nothing if already started. */
  public void start() {
    synchronized (lock) {
      if (poller == null) {
        poller =
            Executors.newSingleThreadScheduledExecutor(
                runnable -> {
                  Thread thread = new Thread(runnable, threadName);
                  thread.setDaemon(true);
                  return thread;
                });
        long millis = interval.toMillis();
        poller.scheduleWithFixedDelay(check, millis, millis, TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Stops polling (a check under way is interrupted); {@link #start()} may start it again. */
  @Override
  public void close() {
    synchronized (lock) {
      if (poller != null) {
        poller.shutdownNow();
        poller = null;
      }
    }
  }
}
