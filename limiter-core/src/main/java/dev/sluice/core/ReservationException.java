package dev.sluice.core;

/**
 * A commit of a reservation that is not open: nothing was refunded or charged. The {@link Reason}
 * says why, so that a caller can tell a bug (a double commit) from a slow request (an expired
 * reservation, already settled at its estimate).
 */
public class ReservationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why a reservation could not be committed. */
  public enum Reason {
    /** The key holds no such reservation: never issued, or its key was reset since. */
    UNKNOWN,
    /** It was committed already; the first commit stands. */
    COMMITTED,
    /** Its ttl passed before the commit: it was settled at its estimate. */
    EXPIRED
  }

  private final Reason reason;

  public ReservationException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
