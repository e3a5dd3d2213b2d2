package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import dev.sluice.core.RateLimiter;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request let through a {@link RateLimitGate}, for as long as it is handled: under a concurrency
 * rule it holds a permit ({@link Decision#permitId()}) that {@link #release()} gives back once the
 * handler is done, whether it returned or threw. Every middleware releases in its "after" step; a
 * release that cannot reach the limiter is dropped, and the permit frees itself at its permitTtl.
 */
public final class Admission {
  private final RateLimiter limiter;
  private final String rule;
  private final String key;
  private final Decision decision;
  private final AtomicBoolean released = new AtomicBoolean();

  Admission(RateLimiter limiter, String rule, String key, Decision decision) {
    this.limiter = limiter;
    this.rule = rule;
    this.key = key;
    this.decision = decision;
  }

  public Decision decision() {
    return decision;
  }

  /** Whether the request may go on. */
  public boolean admitted() {
    return decision.allowed();
  }

  /**
   * Gives back the permit this admission holds, once; nothing for a rule that holds no permits. A
   * failure to reach the limiter is not the request's failure: the permit expires on its own.
   */
  public void release() {
    if (decision.permitId() == 0 || !decision.allowed() || !released.compareAndSet(false, true)) {
      return;
    }
    try {
      limiter.releasePermit(rule, key, decision.permitId());
    } catch (RuntimeException e) {
      // The owner frees the permit at its expiry; the handler's answer must not change for this.
    }
  }
}
