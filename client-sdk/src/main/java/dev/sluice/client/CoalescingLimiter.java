package dev.sluice.client;

import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.RuleStore;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A {@link RateLimiter} decorator that turns concurrent calls on one hot key into one batch call to
 * the limiter behind it ({@link Coalescer} explains how, and why the answers are those of the same
 * calls made one after another). Single checks coalesce; batches, releases, peeks and resets pass
 * through as they are.
 */
final class CoalescingLimiter implements RateLimiter {
  private final RateLimiter delegate;
  private final Coalescer coalescer;

  CoalescingLimiter(RateLimiter delegate) {
    this.delegate = delegate;
    this.coalescer =
        new Coalescer(
            new Coalescer.BatchDecider() {
              // One check goes as a single call, so that its error names its own fields (a batch's
              // name the check: checks[2].cost); the coalescer re-decides a failed batch one by
              // one.
              @Override
              public List<Decision> decide(List<Check> checks) {
                return checks.size() == 1
                    ? List.of(delegate.tryAcquire(checks.get(0)))
                    : delegate.tryAcquireAll(checks);
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
  public Decision tryAcquire(Check check) {
    return coalescer.decide(check.stateKey(), check);
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    return coalescer.decideAsync(check.stateKey(), check);
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return delegate.tryAcquireAll(checks);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return delegate.tryAcquireAllAsync(checks);
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    return delegate.tryAcquireAll(checks, mode);
  }

  @Override
  public Decision release(Check check) {
    return delegate.release(check);
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    return delegate.releasePermit(ref, key, permitId);
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return delegate.peek(ref, key);
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    delegate.reset(ref, key);
  }

  @Override
  public RuleStore rules() {
    return delegate.rules();
  }

  /** Keys with a flight or a queue right now. */
  int activeKeys() {
    return coalescer.activeKeys();
  }
}
