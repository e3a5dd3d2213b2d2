package dev.sluice.core.lease;

import java.lang.ref.WeakReference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Gives a holder's ended leases back to their owners: every {@value #PERIOD_MILLIS} ms on one
 * daemon thread shared by every limiter in the JVM, and all of them when the limiter closes ({@link
 * LeaseHolder#giveBack}).
 *
 * <p>The period bounds how long an ended lease's unused permits stay parked after it ended: leases
 * last at most 100 ms, so a few milliseconds more is small beside it, and a sweep over an empty
 * holder costs one read.
 */
public final class LeaseReturns implements AutoCloseable {
  static final long PERIOD_MILLIS = 10;

  /** How long {@link #close()} waits for its last returns. */
  private static final long CLOSE_WAIT_MILLIS = 2_000;

  private static final ScheduledExecutorService SWEEPER =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "sluice-lease-returns");
            thread.setDaemon(true);
            return thread;
          });

  private final LeaseHolder holder;
  private final @Nullable ScheduledFuture<?> task;

  /**
   * @param periodic whether to sweep every {@value #PERIOD_MILLIS} ms; if not, {@link #sweep} is
   *     called by hand
   */
  public LeaseReturns(LeaseHolder holder, boolean periodic) {
    this.holder = holder;
    this.task =
        periodic
            ? SWEEPER.scheduleWithFixedDelay(
                new Sweep(new WeakReference<>(this)),
                PERIOD_MILLIS,
                PERIOD_MILLIS,
                TimeUnit.MILLISECONDS)
            : null;
  }

  /**
   * The periodic task. It holds its limiter weakly, so that a limiter nobody closed can still be
   * collected; the task ends with it.
   */
  private record Sweep(WeakReference<LeaseReturns> returns) implements Runnable {
    @Override
    public void run() {
      LeaseReturns live = returns.get();
      if (live == null) {
        throw new CancellationOfCollected();
      }
      live.sweep();
    }
  }

  /** Ends the periodic task of a collected limiter (a scheduled task that throws is not rerun). */
  private static final class CancellationOfCollected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CancellationOfCollected() {
      super(null, null, false, false);
    }
  }

  public void sweep() {
    if (holder.holdsAny()) {
      holder.giveBack(false);
    }
  }

  /**
   * Stops sweeping and gives every lease back, waiting a moment for the asks still on their way to
   * land (a renewal sent just before, whose lease would otherwise stay parked until it ended) and
   * for the owners to take the returns.
   */
  @Override
  public void close() {
    if (task != null) {
      task.cancel(false);
    }
    holder.close();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
    try {
      while (holder.asking() && System.nanoTime() - deadline < 0) {
        Thread.sleep(1);
      }
      CompletableFuture<?> last = holder.giveBack(true);
      last.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (TimeoutException | ExecutionException e) {
      // Counted as lost when it fails; a return still in flight may yet arrive. Either way the
      // permits run out with their window.
    }
  }
}
