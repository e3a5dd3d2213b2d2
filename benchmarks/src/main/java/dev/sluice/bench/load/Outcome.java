package dev.sluice.bench.load;

/** What one decision came back as, as far as the harness needs to know. */
public enum Outcome {
  /** The limiter admitted the request. */
  ALLOWED,
  /** The limiter (on the grid, in Redis, behind HTTP) denied the request. */
  DENIED,
  /** Denied without a network hop, by a client-side cache (Sluice's denied-until cache). */
  DENIED_LOCALLY,
  /**
   * Admitted without a network hop, from a lease the key's owner granted (Sluice's leases): counted
   * at the owner when it was granted, and an admission like any other for the exactness tally.
   */
  ALLOWED_LOCALLY,
  /** The call failed: an exception, a timeout, an unexpected HTTP status. */
  ERROR;

  /** Whether the request was admitted, by the limiter or from a lease. */
  public boolean admitted() {
    return this == ALLOWED || this == ALLOWED_LOCALLY;
  }
}
