package dev.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * A limiter that can sometimes answer a check from what this process already holds: a lease its
 * key's owner granted (docs/client.md, "Leases"), or a denial the client cached until its
 * retry-after. Such an answer takes nanoseconds, so a decorator in front asks for it first and
 * skips the work that only pays for a round trip: timing the call, coalescing it with others on the
 * key, guarding it with the call timeout and the breaker.
 *
 * <p>A local answer is the answer {@link RateLimiter#tryAcquire(Check)} would give at that instant,
 * never a more permissive one. A decorator with local answers of its own (the denied-until cache)
 * decides which comes first; the client asks its lease first, whose permits the owner admitted.
 */
public interface AnswersLocally {
  /**
   * The answer to {@code check} from state held here, taking its permits (a lease's), or null when
   * there is none: then nothing was counted and the caller decides the check as usual.
   *
   * @throws InvalidPolicyException if the check is wrong in itself for a policy known here (a cost
   *     above its capacity), as {@link RateLimiter#tryAcquire(Check)} would throw
   */
  @Nullable Decision tryAcquireLocally(Check check);
}
