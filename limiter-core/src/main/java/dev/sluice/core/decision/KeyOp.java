package dev.sluice.core.decision;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.WireEnums;

/**
 * One operation on a key's state, decided in order with the others on that key in one atomic step.
 *
 * @param kind what to do
 * @param permits the permits to take or give back (0 for a peek)
 * @param admittedAtNanos for a {@link Kind#RELEASE} or {@link Kind#RELEASE_RECEIPT}: when the
 *     permits were admitted, on the owner's clock (from {@link KeyOutcome#decidedAtNanos()}), or
 *     {@link #UNKNOWN} for a plain release; for a {@link Kind#RETURN_LEASE}: when the lease was
 *     granted; for a {@link Kind#COMMIT}: when the reservation expires (from its id, so an expired
 *     one is told apart from an unknown one even after the owner forgot it)
 * @param leasePermits for an {@link Kind#ACQUIRE}: the permits the caller would like leased on top
 *     of its request (0: none)
 * @param leaseNanos for an {@link Kind#ACQUIRE} with a lease wanted: the longest lease the caller
 *     wants, {@link LeaseAsk#SHORT_OR_PACED} for the longest the policy allows or a paced one,
 *     {@link LeaseAsk#UNTIL_WINDOW_END} for a small one to the end of the window, or {@link
 *     LeaseAsk#WINDOW_SHORT_OR_PACED} for either; for a {@link Kind#RETURN_LEASE}: the lease's
 *     lifetime as granted; for a {@link Kind#RESERVE}: how long the reservation stays open; for a
 *     {@link Kind#RELEASE_RECEIPT}: 0, or the lifetime of the lease the permits were answered from
 * @param maxWaitNanos for an {@link Kind#ACQUIRE}: how long the caller will wait for permits the
 *     key does not have now (0: not at all); see {@link dev.sluice.core.algorithm.Booking}
 * @param permitId for a {@link Kind#RELEASE_PERMIT}: the id of the permit to give back; for a
 *     {@link Kind#COMMIT}: the id of the reservation to settle; for a {@link Kind#RELEASE_RECEIPT}:
 *     the admission's number on its key ({@link dev.sluice.core.Receipt#number()})
 */
public record KeyOp(
    Kind kind,
    long permits,
    long admittedAtNanos,
    long leasePermits,
    long leaseNanos,
    long maxWaitNanos,
    long permitId) {
  /** {@link #admittedAtNanos} of a release that does not say when the permits were admitted. */
  public static final long UNKNOWN = Long.MIN_VALUE;

  private static final KeyOp PEEK = new KeyOp(Kind.PEEK, 0, UNKNOWN, 0, 0);

  /** The most common operation of all, made once: it is immutable. */
  private static final KeyOp ACQUIRE_ONE = new KeyOp(Kind.ACQUIRE, 1, UNKNOWN, 0, 0);

  /** What an operation does. Codes are part of the wire format: never renumber one. */
  public enum Kind {
    /** Take permits if the policy admits them. */
    ACQUIRE(0),
    /** Give permits back. */
    RELEASE(1),
    /** Report the state, change nothing. */
    PEEK(2),
    /** Give back the unused permits of a lease. */
    RETURN_LEASE(3),
    /** Give back a concurrency rule's permit by its id. */
    RELEASE_PERMIT(4),
    /** Take an estimated cost now and hold it as a reservation until committed or expired. */
    RESERVE(5),
    /** Settle a reservation at its actual cost: refund what was over, charge what was under. */
    COMMIT(6),
    /**
     * Give back what an admission took, proved by its receipt: its exact undo, once, within the
     * window it was admitted in.
     */
    RELEASE_RECEIPT(7);

    private final int code;

    Kind(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    /** The kind with this wire code. */
    public static Kind ofCode(int code) {
      return WireEnums.ofCode(values(), Kind::code, code, "operation");
    }
  }

  public KeyOp {
    if (kind == null) {
      throw new IllegalArgumentException("kind is required");
    }
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
    if (leasePermits < 0 || leaseNanos < 0) {
      throw new IllegalArgumentException("a lease is never negative");
    }
    if (maxWaitNanos < 0) {
      throw new InvalidPolicyException("maxWait", "must not be negative, was " + maxWaitNanos);
    }
    if (kind == Kind.RESERVE && (permits < 1 || leaseNanos < 1)) {
      throw new InvalidPolicyException(
          "cost", "a reservation holds an estimate of at least 1 permit for a positive ttl");
    }
  }

  /** An operation with no wait and no permit id. */
  public KeyOp(Kind kind, long permits, long admittedAtNanos, long leasePermits, long leaseNanos) {
    this(kind, permits, admittedAtNanos, leasePermits, leaseNanos, 0, 0);
  }

  /** A plain operation: no lease asked for. */
  public KeyOp(Kind kind, long permits, long admittedAtNanos) {
    this(kind, permits, admittedAtNanos, 0, 0);
  }

  public static KeyOp acquire(long permits) {
    return new KeyOp(Kind.ACQUIRE, permits, UNKNOWN);
  }

  /**
   * Takes {@code permits}, waiting up to {@code maxWaitNanos} for them: booked for the earliest
   * instant they fit within the wait, or denied with nothing booked.
   */
  public static KeyOp acquire(long permits, long maxWaitNanos) {
    if (permits == 1 && maxWaitNanos == 0) {
      return ACQUIRE_ONE;
    }
    return new KeyOp(Kind.ACQUIRE, permits, UNKNOWN, 0, 0, maxWaitNanos, 0);
  }

  /** Gives back the permit {@code permitId} of a concurrency rule. */
  public static KeyOp releasePermit(long permitId) {
    return new KeyOp(Kind.RELEASE_PERMIT, 0, UNKNOWN, 0, 0, 0, permitId);
  }

  /**
   * Takes {@code estimate} permits now, if the policy admits them, and holds them as a reservation
   * that is open for {@code ttlNanos}.
   */
  public static KeyOp reserve(long estimate, long ttlNanos) {
    return new KeyOp(Kind.RESERVE, estimate, UNKNOWN, 0, ttlNanos, 0, 0);
  }

  /**
   * Settles reservation {@code reservationId}, which expires at {@code expiresAtNanos}, at {@code
   * cost} permits.
   */
  public static KeyOp commit(long reservationId, long expiresAtNanos, long cost) {
    return new KeyOp(Kind.COMMIT, cost, expiresAtNanos, 0, 0, 0, reservationId);
  }

  /**
   * Takes {@code permits} for a request and, if they are admitted, asks for up to {@code
   * leasePermits} more as a lease of at most {@code leaseNanos}.
   */
  public static KeyOp acquireWithLease(long permits, long leasePermits, long leaseNanos) {
    return new KeyOp(Kind.ACQUIRE, permits, UNKNOWN, leasePermits, leaseNanos);
  }

  /** Gives back {@code permits} a lease granted at {@code grantedAtNanos} did not use. */
  public static KeyOp returnLease(long permits, long grantedAtNanos, long leaseNanos) {
    return new KeyOp(Kind.RETURN_LEASE, permits, grantedAtNanos, 0, leaseNanos);
  }

  public static KeyOp peek() {
    return PEEK;
  }

  /** Gives back permits with no word on when they were admitted (the plain release of the API). */
  public static KeyOp release(long permits) {
    return new KeyOp(Kind.RELEASE, permits, UNKNOWN);
  }

  /**
   * Gives back the admission a receipt proves: {@code permits} admitted at {@code admittedAtNanos}
   * (answered from a lease of {@code leaseNanos} granted then, or 0), numbered {@code number}.
   */
  public static KeyOp releaseReceipt(
      long permits, long admittedAtNanos, long leaseNanos, long number) {
    return new KeyOp(Kind.RELEASE_RECEIPT, permits, admittedAtNanos, 0, leaseNanos, 0, number);
  }

  /** Gives back exactly what an admission at {@code admittedAtNanos} took. */
  public static KeyOp releaseAdmittedAt(long permits, long admittedAtNanos) {
    return new KeyOp(Kind.RELEASE, permits, admittedAtNanos);
  }

  /** Whether this operation takes permits if the policy admits them (an acquire or a reserve). */
  public boolean takes() {
    return (kind == Kind.ACQUIRE || kind == Kind.RESERVE) && permits > 0;
  }

  /**
   * Whether this operation can change the state. An acquire of 0 permits that asks for a lease
   * does: the owner counts the lease it grants (a holder renewing a lease ahead of its end sends
   * one).
   */
  public boolean writes() {
    return kind == Kind.RELEASE_PERMIT
        || kind == Kind.COMMIT
        || kind == Kind.RELEASE_RECEIPT
        || (kind != Kind.PEEK && permits > 0)
        || (kind == Kind.ACQUIRE && leasePermits > 0);
  }
}
