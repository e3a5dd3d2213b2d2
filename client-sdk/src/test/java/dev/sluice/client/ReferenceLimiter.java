package dev.sluice.client;

import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.TimeSource;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real limiter in one JVM (the local runtime, the pipeline every runtime shares), counting the
 * invocations it serves: a single check and a batch count one each. The client's tests compare
 * against it and put the client in front of it.
 */
final class ReferenceLimiter implements RateLimiter {
  private final LocalRateLimiter limiter;
  final AtomicInteger invocations = new AtomicInteger();

  ReferenceLimiter(TimeSource time) {
    this.limiter = LocalRateLimiter.builder().timeSource(time).build();
  }

  ReferenceLimiter withRule(String name, Policy policy) {
    rules().put(new Rule(name, policy));
    return this;
  }

  @Override
  public Decision tryAcquire(Check check) {
    invocations.incrementAndGet();
    return limiter.tryAcquire(check);
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    return CompletableFuture.completedFuture(tryAcquire(check));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    invocations.incrementAndGet();
    return limiter.tryAcquireAll(checks);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return CompletableFuture.completedFuture(tryAcquireAll(checks));
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    invocations.incrementAndGet();
    return limiter.tryAcquireAll(checks, mode);
  }

  @Override
  public Decision release(Check check) {
    invocations.incrementAndGet();
    return limiter.release(check);
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    return limiter.releasePermit(ref, key, permitId);
  }

  @Override
  public Reservation reserve(Check check, Duration ttl) {
    return limiter.reserve(check, ttl);
  }

  @Override
  public Decision commit(String reservationId, long cost) {
    return limiter.commit(reservationId, cost);
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return limiter.peek(ref, key);
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    limiter.reset(ref, key);
  }

  @Override
  public RuleStore rules() {
    return limiter.rules();
  }
}
