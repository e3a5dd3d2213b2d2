package dev.sluice.core.grid.wire;

import dev.sluice.core.decision.StoredState;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A key's state as a member holds it in the state map: the object the map's record points at (the
 * map keeps its values as objects, in-memory format OBJECT). It is the {@link StoredState} the
 * decision works on, in the fewest heap bytes that hold it; on the wire and in every other member
 * it is written exactly as a {@code StoredState} ({@link StoredStateSerializer}).
 *
 * <h2>Why an object of its own</h2>
 *
 * Every active key pays for its value once per copy (owner and backup), and after the per-entry TTL
 * (docs/grid.md, "Cleanup") the value is the one part of an entry Sluice still chooses. Held as a
 * {@code StoredState} it costs 64 bytes for a sliding window (a 24-byte record object and a 40-byte
 * {@code long[3]}); serialized in a BINARY map 56 bytes (a {@code HeapData} and its array). {@link
 * Packed} holds the fingerprint and the three numbers in one object of 24 bytes: a 12-byte object
 * header, then an {@code int} and a {@code long}, with compressed class pointers (the JVM's default
 * below 32 GB of heap). That is the size of the smallest array a value could be.
 *
 * <h2>Packed layout</h2>
 *
 * A state packs when it has one to three values, all non-negative, the first a whole number of
 * seconds in nanoseconds below 2^32 s (epoch seconds until 2106): the window start of a
 * sliding_window or fixed_window state whose window is whole seconds.
 *
 * <pre>
 *   bits 63..62  number of values - 1
 *   bits 61..30  first value / 10^9
 *   bits 29..0   the others: two values of 15 bits (below 32,768), or one of 30 bits
 * </pre>
 *
 * Example: a one-minute sliding_window with 3 counted this window and 5 the last, {@code
 * [1767265200 × 10^9, 3, 5]}, packs as {@code 2 << 62 | 1767265200 << 30 | 3 << 15 | 5}. Any other
 * state (a token bucket's arrival time in unaligned nanoseconds, a sliding log, several limits, a
 * count of 32,768 or more) is held {@link Wide}: the fingerprint and a {@code long[]}, as a {@code
 * StoredState} would be. Which one is an in-memory detail: both decide and serialize alike.
 *
 * <p>Immutable: the map hands the stored object itself to every processor, so nothing may change it
 * in place; {@link #toStored()} of a wide value shares its array, and the decision copies before it
 * changes anything ({@link dev.sluice.core.decision.KeyDecision}).
 */
public abstract sealed class StateValue
    permits StateValue.Packed, StateValue.Wide, StateValue.WithWriter {
  private static final long SECOND_NANOS = 1_000_000_000L;
  private static final int COUNT_SHIFT = 62;
  private static final int FIRST_SHIFT = 30;
  private static final long FIRST_MASK = 0xFFFF_FFFFL;
  private static final int HALF_BITS = 15;
  private static final long HALF_MASK = (1L << HALF_BITS) - 1;
  private static final long REST_MASK = (1L << FIRST_SHIFT) - 1;

  private StateValue() {}

  /** The fingerprint of the policy shape the values were written under. */
  public abstract int fingerprint();

  /** The state as the decision takes it; its array must not be changed. */
  public abstract StoredState toStored();

  /**
   * The value to store for {@code stored}: packed if it fits, else wide; with its writer where it
   * keeps one.
   */
  public static StateValue of(StoredState stored) {
    if (stored.writer() != null) {
      return new WithWriter(stored);
    }
    long[] values = stored.values();
    long bits = stored.hasReservations() || stored.hasSpentReceipts() ? -1 : pack(values);
    return bits == -1
        ? new Wide(stored.fingerprint(), values, stored.reservations(), stored.spentReceipts())
        : new Packed(stored.fingerprint(), bits);
  }

  /**
   * The state a map value holds: a {@code StateValue}, or a {@code StoredState} that someone put in
   * the map directly; null for no value.
   */
  public static @Nullable StoredState stored(@Nullable Object mapValue) {
    if (mapValue == null) {
      return null;
    }
    if (mapValue instanceof StateValue value) {
      return value.toStored();
    }
    return (StoredState) mapValue;
  }

  /**
   * {@code values} packed into one long (see the class comment), or -1 if they do not fit (no
   * packing is -1: its top bits would say four values).
   */
  static long pack(long[] values) {
    int n = values.length;
    if (n < 1 || n > 3) {
      return -1;
    }
    long first = values[0];
    if (first < 0 || first % SECOND_NANOS != 0 || first / SECOND_NANOS > FIRST_MASK) {
      return -1;
    }
    long rest;
    if (n == 1) {
      rest = 0;
    } else if (n == 2) {
      if (values[1] < 0 || values[1] > REST_MASK) {
        return -1;
      }
      rest = values[1];
    } else {
      if (values[1] < 0 || values[1] > HALF_MASK || values[2] < 0 || values[2] > HALF_MASK) {
        return -1;
      }
      rest = values[1] << HALF_BITS | values[2];
    }
    return (long) (n - 1) << COUNT_SHIFT | (first / SECOND_NANOS) << FIRST_SHIFT | rest;
  }

  /** The values {@link #pack} packed into {@code bits}. */
  static long[] unpack(long bits) {
    int n = (int) (bits >>> COUNT_SHIFT) + 1;
    long[] values = new long[n];
    values[0] = ((bits >>> FIRST_SHIFT) & FIRST_MASK) * SECOND_NANOS;
    long rest = bits & REST_MASK;
    if (n == 2) {
      values[1] = rest;
    } else if (n == 3) {
      values[1] = rest >>> HALF_BITS;
      values[2] = rest & HALF_MASK;
    }
    return values;
  }

  /** A state of up to three small numbers, in 24 bytes. */
  static final class Packed extends StateValue {
    private final int fingerprint;
    private final long bits;

    Packed(int fingerprint, long bits) {
      this.fingerprint = fingerprint;
      this.bits = bits;
    }

    @Override
    public int fingerprint() {
      return fingerprint;
    }

    @Override
    public StoredState toStored() {
      return new StoredState(fingerprint, unpack(bits));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Packed other && fingerprint == other.fingerprint && bits == other.bits;
    }

    @Override
    public int hashCode() {
      return 31 * fingerprint + Long.hashCode(bits);
    }

    @Override
    public String toString() {
      return "Packed" + toStored();
    }
  }

  /**
   * Any other state (a key with reservations or spent receipts among them): the fingerprint, the
   * values, the reservation ledger and the spent receipts, as a {@code StoredState} holds them. A
   * state with neither is {@link Packed} when its values fit, so it costs what it did before them.
   */
  static final class Wide extends StateValue {
    private final int fingerprint;
    private final long[] values;
    private final long[] reservations;
    private final long[] spentReceipts;

    Wide(int fingerprint, long[] values, long[] reservations, long[] spentReceipts) {
      this.fingerprint = fingerprint;
      this.values = values;
      this.reservations = reservations;
      this.spentReceipts = spentReceipts;
    }

    @Override
    public int fingerprint() {
      return fingerprint;
    }

    @Override
    public StoredState toStored() {
      return new StoredState(fingerprint, values, reservations, spentReceipts, null);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Wide other
          && fingerprint == other.fingerprint
          && Arrays.equals(values, other.values)
          && Arrays.equals(reservations, other.reservations)
          && Arrays.equals(spentReceipts, other.spentReceipts);
    }

    @Override
    public int hashCode() {
      return 31 * fingerprint + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
      return "Wide" + toStored();
    }
  }

  /**
   * A state that keeps the policy that wrote it ({@link StoredState#writer()}): an inline policy's
   * under a state name. Held as the {@code StoredState} itself, since its policy object is shared
   * with the member's compiled inline policies where it was decided here; a class of its own, so
   * that the other states pay nothing for the field.
   */
  static final class WithWriter extends StateValue {
    private final StoredState stored;

    WithWriter(StoredState stored) {
      this.stored = stored;
    }

    @Override
    public int fingerprint() {
      return stored.fingerprint();
    }

    @Override
    public StoredState toStored() {
      return stored;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof WithWriter other && stored.equals(other.stored);
    }

    @Override
    public int hashCode() {
      return stored.hashCode();
    }

    @Override
    public String toString() {
      return "WithWriter" + stored;
    }
  }
}
