package dev.sluice.core.algorithm;

/**
 * A lease of a key at its limit: permits the owner counted now that become usable one after
 * another, on the owner's schedule, instead of all at once (docs/algorithms.md, "Paced leases").
 * The {@code j}-th permit (from 1) may be used from {@code firstAtNanos + (j - 1) × spacingNanos}
 * until {@code endsAtNanos}, each instant no earlier than the one at which the owner alone would
 * have admitted that permit.
 *
 * @param permits the permits counted for the lease; 0: none granted
 * @param firstAtNanos when the first becomes usable, on the owner's clock
 * @param spacingNanos the time between two permits becoming usable (at least 1)
 * @param endsAtNanos when the lease ends, on the owner's clock
 */
public record PacedLease(long permits, long firstAtNanos, long spacingNanos, long endsAtNanos) {
  /** Nothing granted. */
  public static final PacedLease NONE = new PacedLease(0, 0, 1, 0);

  public PacedLease {
    if (permits < 0 || spacingNanos < 1) {
      throw new IllegalArgumentException(
          "a paced lease has permits >= 0 and a spacing >= 1, was "
              + permits
              + ", "
              + spacingNanos);
    }
  }

  /** When the {@code n}-th permit (from 1) becomes usable, on the owner's clock. */
  public long usableAtNanos(long n) {
    return NanoMath.saturatedAdd(
        firstAtNanos, NanoMath.saturatedMultiply(spacingNanos, Math.max(0, n - 1)));
  }
}
