package dev.sluice.core.pipeline;

import dev.sluice.core.InvalidPolicyException;

/**
 * One operation on a key's state, decided in order with the others on that key in one atomic step.
 *
 * @param kind what to do
 * @param permits the permits to take or give back (0 for a peek)
 * @param admittedAtNanos for a {@link Kind#RELEASE}: when the permits were admitted, on the owner's
 *     clock (from {@link KeyOutcome#decidedAtNanos()}), or {@link #UNKNOWN} for a plain release
 */
public record KeyOp(Kind kind, long permits, long admittedAtNanos) {
  /** {@link #admittedAtNanos} of a release that does not say when the permits were admitted. */
  public static final long UNKNOWN = Long.MIN_VALUE;

  private static final KeyOp PEEK = new KeyOp(Kind.PEEK, 0, UNKNOWN);

  /** What an operation does. Codes are part of the wire format: never renumber one. */
  public enum Kind {
    /** Take permits if the policy admits them. */
    ACQUIRE(0),
    /** Give permits back. */
    RELEASE(1),
    /** Report the state, change nothing. */
    PEEK(2);

    private final int code;

    Kind(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    /** The kind with this wire code. */
    public static Kind ofCode(int code) {
      for (Kind kind : values()) {
        if (kind.code == code) {
          return kind;
        }
      }
      throw new IllegalArgumentException("unknown operation code " + code);
    }
  }

  public KeyOp {
    if (kind == null) {
      throw new IllegalArgumentException("kind is required");
    }
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
  }

  public static KeyOp acquire(long permits) {
    return new KeyOp(Kind.ACQUIRE, permits, UNKNOWN);
  }

  public static KeyOp peek() {
    return PEEK;
  }

  /** Gives back permits with no word on when they were admitted (the plain release of the API). */
  public static KeyOp release(long permits) {
    return new KeyOp(Kind.RELEASE, permits, UNKNOWN);
  }

  /** Gives back exactly what an admission at {@code admittedAtNanos} took. */
  public static KeyOp releaseAdmittedAt(long permits, long admittedAtNanos) {
    return new KeyOp(Kind.RELEASE, permits, admittedAtNanos);
  }

  /** Whether this operation can change the state. */
  public boolean writes() {
    return kind != Kind.PEEK && permits > 0;
  }
}
