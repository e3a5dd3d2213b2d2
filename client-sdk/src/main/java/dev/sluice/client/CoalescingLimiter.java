package dev.sluice.client;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} decorator that turns concurrent calls on one hot key into one batch call to
 * the limiter behind it ({@link Coalescer} explains how, and why the answers are those of the same
 * calls made one after another). Single checks coalesce, each waiting at most its own timeout in
 * all; batches, releases, peeks and resets pass through as they are.
 */
final class CoalescingLimiter implements TimedLimiter.Forwarding {
  private final TimedLimiter delegate;
  private final Coalescer coalescer;

  CoalescingLimiter(TimedLimiter delegate) {
    this.delegate = delegate;
    this.coalescer =
        new Coalescer(
            new Coalescer.BatchDecider() {
              // One check goes as a single call, so that its error names its own fields (a batch's
              // name the check: checks[2].cost); the coalescer re-decides a failed batch one by
              // one.
              @Override
              public List<Decision> decide(List<Check> checks, long timeoutNanos)
                  throws TimeoutException {
                return checks.size() == 1
                    ? List.of(delegate.tryAcquire(checks.get(0), timeoutNanos))
                    : delegate.tryAcquireAll(checks, timeoutNanos);
              }

              @Override
              public CompletionStage<List<Decision>> decideAsync(List<Check> checks) {
                return checks.size() == 1
                    ? delegate.tryAcquireAsync(checks.get(0)).thenApply(List::of)
                    : delegate.tryAcquireAllAsync(checks);
              }
            });
  }

  @Override
  public RateLimiter delegate() {
    return delegate;
  }

  @Override
  public @Nullable Decision tryAcquireLocally(Check check) {
    return delegate.tryAcquireLocally(check);
  }

  /** Without a timeout of its own: waits as long as the limiter behind it takes (a day at most). */
  @Override
  public Decision tryAcquire(Check check) {
    try {
      return tryAcquire(check, TimeUnit.DAYS.toNanos(1));
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer", e);
    }
  }

  /**
   * A check a lease held here can answer is answered at once: coalescing shares a round trip, and a
   * lease answer has none, so queueing it behind the key's flight would only make hot keys, the
   * ones leases are for, wait on each other (docs/client.md, "Leases").
   */
  @Override
  public Decision tryAcquire(Check check, long timeoutNanos) throws TimeoutException {
    Decision leased = delegate.tryAcquireLocally(check);
    return leased != null ? leased : coalescer.decide(check.stateKey(), check, timeoutNanos);
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    Decision leased = delegate.tryAcquireLocally(check);
    return leased != null
        ? CompletableFuture.completedFuture(leased)
        : coalescer.decideAsync(check.stateKey(), check);
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks, long timeoutNanos)
      throws TimeoutException {
    return delegate.tryAcquireAll(checks, timeoutNanos);
  }

  @Override
  public Decision release(Check check, long timeoutNanos) throws TimeoutException {
    return delegate.release(check, timeoutNanos);
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId, long timeoutNanos)
      throws TimeoutException {
    return delegate.releasePermit(ref, key, permitId, timeoutNanos);
  }

  @Override
  public Reservation reserve(Check check, Duration ttl, long timeoutNanos) throws TimeoutException {
    return delegate.reserve(check, ttl, timeoutNanos);
  }

  @Override
  public Decision commit(String reservationId, long cost, long timeoutNanos)
      throws TimeoutException {
    return delegate.commit(reservationId, cost, timeoutNanos);
  }

  @Override
  public Decision peek(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
    return delegate.peek(ref, key, timeoutNanos);
  }

  @Override
  public void reset(PolicyRef ref, String key, long timeoutNanos) throws TimeoutException {
    delegate.reset(ref, key, timeoutNanos);
  }

  /** Keys with a flight or a queue right now. */
  int activeKeys() {
    return coalescer.activeKeys();
  }
}
