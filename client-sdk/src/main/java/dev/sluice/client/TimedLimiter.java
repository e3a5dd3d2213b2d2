package dev.sluice.client;

import dev.sluice.core.AnswersLocally;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.RuleStore;
import dev.sluice.core.pipeline.Futures;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} whose synchronous calls can also be waited for at most a given time: what
 * the failure policy needs of the limiter behind it, so that every call path (single checks, a
 * check's booking within its {@code maxWait}, batches, coalesced batches, peeks, releases of counts
 * and of permit ids, resets) honours the call timeout.
 *
 * <p>{@link #of} adapts any limiter. Over a {@link PipelineRateLimiter} (the grid, a local limiter)
 * the caller's thread waits on the invocation's own future, with nothing read synchronously before
 * it (the pipeline reads a batch's rules asynchronously). Over any other limiter the asynchronous
 * API is waited on with the timeout, and calls that have no asynchronous form run on a daemon
 * thread the caller stops waiting for.
 */
interface TimedLimiter extends RateLimiter, AnswersLocally {

  /** {@link #tryAcquire(Check)}, waiting at most {@code timeoutNanos}. */
  Decision tryAcquire(Check check, long timeoutNanos) throws TimeoutException;

  /** {@link #tryAcquireAll(List)}, waiting at most {@code timeoutNanos}. */
  List<Decision> tryAcquireAll(List<Check> checks, long timeoutNanos) throws TimeoutException;

  /** {@link #release(Check)}, waiting at most {@code timeoutNanos}. */
  Decision release(Check check, long timeoutNanos) throws TimeoutException;

  /** {@link #releasePermit(PolicyRef, String, long)}, waiting at most {@code timeoutNanos}. */
  Decision releasePermit(PolicyRef ref, String key, long permitId, long timeoutNanos)
      throws TimeoutException;

  /** {@link #reserve(Check, Duration)}, waiting at most {@code timeoutNanos}. */
  Reservation reserve(Check check, Duration ttl, long timeoutNanos) throws TimeoutException;

  /** {@link #commit(String, long)}, waiting at most {@code timeoutNanos}. */
  Decision commit(String reservationId, long cost, long timeoutNanos) throws TimeoutException;

  /** {@link #peek(PolicyRef, String)}, waiting at most {@code timeoutNanos}. */
  Decision peek(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException;

  /** {@link #reset(PolicyRef, String)}, waiting at most {@code timeoutNanos}. */
  void reset(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException;

  /**
   * {@inheritDoc} Only a pipeline limiter that holds leases has such answers; over any other
   * limiter, none.
   */
  @Override
  default @Nullable Decision tryAcquireLocally(Check check) {
    return null;
  }

  /** {@code limiter} itself if it is one, else the adapter that fits it. */
  static TimedLimiter of(RateLimiter limiter) {
    if (limiter instanceof TimedLimiter timed) {
      return timed;
    }
    return limiter instanceof PipelineRateLimiter pipeline
        ? new Pipeline(pipeline)
        : new Waiting(limiter);
  }

  /** Everything but the timed calls passes through to {@code delegate()}. */
  interface Forwarding extends TimedLimiter {
    RateLimiter delegate();

    @Override
    default Decision tryAcquire(Check check) {
      return delegate().tryAcquire(check);
    }

    @Override
    default CompletionStage<Decision> tryAcquireAsync(Check check) {
      return delegate().tryAcquireAsync(check);
    }

    @Override
    default List<Decision> tryAcquireAll(List<Check> checks) {
      return delegate().tryAcquireAll(checks);
    }

    @Override
    default CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
      return delegate().tryAcquireAllAsync(checks);
    }

    @Override
    default BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
      return delegate().tryAcquireAll(checks, mode);
    }

    @Override
    default Decision release(Check check) {
      return delegate().release(check);
    }

    @Override
    default Decision releasePermit(PolicyRef ref, String key, long permitId) {
      return delegate().releasePermit(ref, key, permitId);
    }

    @Override
    default Reservation reserve(Check check, Duration ttl) {
      return delegate().reserve(check, ttl);
    }

    @Override
    default Decision commit(String reservationId, long cost) {
      return delegate().commit(reservationId, cost);
    }

    @Override
    default Decision peek(PolicyRef ref, String key) {
      return delegate().peek(ref, key);
    }

    @Override
    default void reset(PolicyRef ref, String key) {
      delegate().reset(ref, key);
    }

    @Override
    default RuleStore rules() {
      return delegate().rules();
    }
  }

  /** The pipeline's own timed calls: the caller waits on the invocation's future. */
  record Pipeline(PipelineRateLimiter delegate) implements Forwarding {
    @Override
    public @Nullable Decision tryAcquireLocally(Check check) {
      return delegate.tryAcquireLocally(check);
    }

    @Override
    public Decision tryAcquire(Check check, long timeoutNanos) throws TimeoutException {
      return delegate.tryAcquire(check, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public List<Decision> tryAcquireAll(List<Check> checks, long timeoutNanos)
        throws TimeoutException {
      return delegate.tryAcquireAll(checks, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public Decision release(Check check, long timeoutNanos) throws TimeoutException {
      return delegate.release(check, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public Decision releasePermit(PolicyRef ref, String key, long permitId, long timeoutNanos)
        throws TimeoutException {
      return delegate.releasePermit(ref, key, permitId, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public Reservation reserve(Check check, Duration ttl, long timeoutNanos)
        throws TimeoutException {
      return delegate.reserve(check, ttl, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public Decision commit(String reservationId, long cost, long timeoutNanos)
        throws TimeoutException {
      return delegate.commit(reservationId, cost, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public Decision peek(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
      return delegate.peek(ref, key, Duration.ofNanos(timeoutNanos));
    }

    @Override
    public void reset(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
      delegate.reset(ref, key, Duration.ofNanos(timeoutNanos));
    }
  }

  /** Any other limiter: its asynchronous calls, or its synchronous ones on a waiter thread. */
  record Waiting(RateLimiter delegate) implements Forwarding {
    /**
     * Where synchronous-only calls run so that the caller can stop waiting: daemon threads, made as
     * needed and let go when idle.
     */
    static final ExecutorService WAITERS =
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-client-waiter");
              thread.setDaemon(true);
              return thread;
            });

    @Override
    public Decision tryAcquire(Check check, long timeoutNanos) throws TimeoutException {
      return Futures.awaitWithin(fresh(delegate.tryAcquireAsync(check)), timeoutNanos);
    }

    @Override
    public List<Decision> tryAcquireAll(List<Check> checks, long timeoutNanos)
        throws TimeoutException {
      return Futures.awaitWithin(fresh(delegate.tryAcquireAllAsync(checks)), timeoutNanos);
    }

    @Override
    public Decision release(Check check, long timeoutNanos) throws TimeoutException {
      return onWaiter(() -> delegate.release(check), timeoutNanos);
    }

    @Override
    public Decision releasePermit(PolicyRef ref, String key, long permitId, long timeoutNanos)
        throws TimeoutException {
      return onWaiter(() -> delegate.releasePermit(ref, key, permitId), timeoutNanos);
    }

    @Override
    public Reservation reserve(Check check, Duration ttl, long timeoutNanos)
        throws TimeoutException {
      return onWaiter(() -> delegate.reserve(check, ttl), timeoutNanos);
    }

    @Override
    public Decision commit(String reservationId, long cost, long timeoutNanos)
        throws TimeoutException {
      return onWaiter(() -> delegate.commit(reservationId, cost), timeoutNanos);
    }

    @Override
    public Decision peek(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
      return onWaiter(() -> delegate.peek(ref, key), timeoutNanos);
    }

    @Override
    public void reset(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
      onWaiter(
          () -> {
            delegate.reset(ref, key);
            return Boolean.TRUE;
          },
          timeoutNanos);
    }

    private static <T> T onWaiter(Supplier<T> call, long timeoutNanos) throws TimeoutException {
      return Futures.awaitWithin(CompletableFuture.supplyAsync(call, WAITERS), timeoutNanos);
    }

    /** The limiter's answer as a fresh future, so waiting on it never touches the limiter's. */
    private static <T> CompletableFuture<T> fresh(CompletionStage<T> stage) {
      CompletableFuture<T> copy = new CompletableFuture<>();
      stage.whenComplete(
          (value, error) -> {
            if (error != null) {
              copy.completeExceptionally(error);
            } else {
              copy.complete(value);
            }
          });
      return copy;
    }
  }
}
