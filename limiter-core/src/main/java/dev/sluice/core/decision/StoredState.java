package dev.sluice.core.decision;

import dev.sluice.core.Policy;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A key's state as a store keeps it: the algorithm's {@code long[]}, a fingerprint of the policy
 * shape that gives the numbers their meaning ({@link CompiledPolicy#fingerprint()}), the key's open
 * and recently committed reservations ({@link ReservationLedger}) and the receipts given back on it
 * in their window ({@link SpentReceipts}). No limit, burst or flag is stored: they come from the
 * policy on every decision, so changing a limit needs no migration, and a state of another shape is
 * carried over ({@link KeyDecision}).
 *
 * <p>Only where nothing else could name the policy of a fingerprint later does the state keep it
 * ({@code writer}): an inline policy under a state name ({@link
 * dev.sluice.core.PolicyRef#inlineUnder}), whose next call may carry any other parameters. A rule's
 * former policies are in its record, and an inline policy's identity is in its state key.
 *
 * @param fingerprint the shape the values were written under
 * @param values the algorithm's state; owned by the store, copied before it is changed
 * @param reservations the key's reservation ledger, {@link ReservationLedger#EMPTY} for none; never
 *     changed in place
 * @param spentReceipts the receipts given back on the key ({@link SpentReceipts}), {@link
 *     SpentReceipts#EMPTY} for none; never changed in place
 * @param writer the policy that wrote the values, kept with them where no record can tell it; null
 *     otherwise
 */
public record StoredState(
    int fingerprint,
    long[] values,
    long[] reservations,
    long[] spentReceipts,
    @Nullable Policy writer) {

  public StoredState {
    if (reservations == null) {
      reservations = ReservationLedger.EMPTY;
    }
    if (spentReceipts == null) {
      spentReceipts = SpentReceipts.EMPTY;
    }
  }

  /** A state on which no receipt was given back and that does not keep its writer. */
  public StoredState(int fingerprint, long[] values, long[] reservations) {
    this(fingerprint, values, reservations, SpentReceipts.EMPTY, null);
  }

  /** A state that holds no reservation, remembers no receipt and does not keep its writer. */
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
        && Arrays.equals(spentReceipts, other.spentReceipts)
        && Objects.equals(writer, other.writer);
  }

  @Override
  public int hashCode() {
    return (((31 * fingerprint + Arrays.hashCode(values)) * 31 + Arrays.hashCode(reservations)) * 31
                + Arrays.hashCode(spentReceipts))
            * 31
        + Objects.hashCode(writer);
  }

  @Override
  public String toString() {
    return "StoredState{fingerprint="
        + fingerprint
        + ", values="
        + Arrays.toString(values)
        + (reservations.length > 0 ? ", reservations=" + Arrays.toString(reservations) : "")
        + (spentReceipts.length > 0 ? ", spentReceipts=" + Arrays.toString(spentReceipts) : "")
        + (writer != null ? ", writer=" + writer : "")
        + '}';
  }
}
