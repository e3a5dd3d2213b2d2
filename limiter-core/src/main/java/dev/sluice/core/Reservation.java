package dev.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * What {@link RateLimiter#reserve} answers: the decision on the estimate and, when it was taken,
 * the id to {@link RateLimiter#commit} the actual cost with.
 *
 * @param id the reservation's id, or null when nothing is held: the estimate was denied, or a
 *     shadow rule would have denied it (then it is allowed, flagged {@link
 *     Decision#shadowDenied()}, and nothing was counted, so there is nothing to commit)
 * @param decision the decision on the estimate, as a check for that cost would get it
 */
public record Reservation(@Nullable String id, Decision decision) {

  /** Whether the caller may proceed. */
  public boolean allowed() {
    return decision.allowed();
  }
}
