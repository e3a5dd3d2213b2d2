package dev.sluice.core;

/**
 * A release that frees nothing because what it shows does not prove the permits are the caller's to
 * give back. The {@link Reason} says which, so that REST can answer 401, 403, 409 or 410 and a Java
 * caller can tell a bug (a receipt given back twice) from a slow caller (its window ended).
 *
 * <p>An {@link IllegalArgumentException}: the request is wrong, not the runtime, so that a client
 * never counts it as the grid failing (its breaker, its failure policy).
 */
public class ReleaseException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Why a release freed nothing. */
  public enum Reason {
    /** A bare count on a rule whose releases need proof ({@code release: proof}, the default). */
    PROOF_REQUIRED,
    /**
     * The receipt's seal does not hold: altered, forged, or issued by another cluster (or by one
     * that has since lost its secret).
     */
    NOT_ISSUED_HERE,
    /** The receipt was given back already: a receipt frees at most once. */
    SPENT,
    /** The window the permits were admitted in has ended: they count in no window now. */
    EXPIRED
  }

  private final Reason reason;

  public ReleaseException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
