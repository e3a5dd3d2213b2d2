package dev.sluice.bench.load;

/** What one decision came back as, as far as the harness needs to know. */
public enum Outcome {
  /** The limiter admitted the request. */
  ALLOWED,
  /** The limiter (on the grid, in Redis, behind HTTP) denied the request. */
  DENIED,
  /** Denied without a network hop, by a client-side cache (Sluice's denied-until cache). */
  DENIED_LOCALLY,
  /** The call failed: an exception, a timeout, an unexpected HTTP status. */
  ERROR
}
