package dev.sluice.core.pipeline;

import java.util.Arrays;

/**
 * A key's state as a store keeps it: the algorithm's {@code long[]}, a fingerprint of the policy
 * shape that gives the numbers their meaning ({@link CompiledPolicy#fingerprint()}), the key's open
 * and recently committed reservations ({@link ReservationLedger}) and the receipts given back on it
 * in their window ({@link SpentReceipts}). No limit, burst or flag is stored: they come from the
 * policy on every decision, so changing a limit needs no migration, and a state of another shape is
 * carried over ({@link KeyDecision}).
 *
 * @param fingerprint the shape the values were written under
 * @param values the algorithm's state; owned by the store, copied before it is changed
 * @param reservations the key's reservation ledger, {@link ReservationLedger#EMPTY} for none; never
 *     changed in place
 * @param spentReceipts the receipts given back on the key ({@link SpentReceipts}), {@link
 *     SpentReceipts#EMPTY} for none; never changed in place
 */
public record StoredState(
    int fingerprint, long[] values, long[] reservations, long[] spentReceipts) {

  public StoredState {
    if (reservations == null) {
      reservations = ReservationLedger.EMPTY;
    }
    if (spentReceipts == null) {
      spentReceipts = SpentReceipts.EMPTY;
    }
  }

  /** A state on which no receipt was given back. */
  public StoredState(int fingerprint, long[] values, long[] reservations) {
    this(fingerprint, values, reservations, SpentReceipts.EMPTY);
  }

  /** A state that holds no reservation. */
  public StoredState(int fingerprint, long[] values) {
    this(fingerprint, values, ReservationLedger.EMPTY);
  }

  /** Whether the key holds reservations (open, or committed and not yet expired). */
  public boolean hasReservations() {
    return reservations.length > 0;
  }

  /** Whether the key remembers receipts given back on it. */
  public boolean hasSpentReceipts() {
    return spentReceipts.length > 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredState other
        && fingerprint == other.fingerprint
        && Arrays.equals(values, other.values)
        && Arrays.equals(reservations, other.reservations)
        && Arrays.equals(spentReceipts, other.spentReceipts);
  }

  @Override
  public int hashCode() {
    return ((31 * fingerprint + Arrays.hashCode(values)) * 31 + Arrays.hashCode(reservations)) * 31
        + Arrays.hashCode(spentReceipts);
  }

  @Override
  public String toString() {
    return "StoredState{fingerprint="
        + fingerprint
        + ", values="
        + Arrays.toString(values)
        + (reservations.length > 0 ? ", reservations=" + Arrays.toString(reservations) : "")
        + (spentReceipts.length > 0 ? ", spentReceipts=" + Arrays.toString(spentReceipts) : "")
        + '}';
  }
}
