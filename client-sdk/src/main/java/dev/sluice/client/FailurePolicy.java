package dev.sluice.client;

/**
 * What a client answers when the grid cannot: unreachable, too slow (past the call timeout), or
 * behind an open circuit breaker. Chosen per rule; {@link #FAIL_OPEN} by default, because a rate
 * limiter that takes the application down with it protects nothing.
 */
public enum FailurePolicy {
  /** Admit the request; the decision says {@code FAIL_OPEN}. For limits that protect capacity. */
  FAIL_OPEN,
  /**
   * Deny the request; the decision says {@code FAIL_CLOSED}. For limits that protect something
   * worth more than availability: logins, payments, SMS sends.
   */
  FAIL_CLOSED
}
