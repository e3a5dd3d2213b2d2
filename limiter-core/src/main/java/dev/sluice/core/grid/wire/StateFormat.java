package dev.sluice.core.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.decision.ReservationLedger;
import dev.sluice.core.decision.SpentReceipts;
import dev.sluice.core.decision.StoredState;
import java.io.IOException;

/**
 * How a key's {@link StoredState} is stored in the state map: the algorithm's {@code long[]} and
 * the fingerprint of the policy shape that wrote it ({@link
 * dev.sluice.core.decision.CompiledPolicy#fingerprint}).
 *
 * <h2>Stored format</h2>
 *
 * Every state is stored twice (owner and backup) for every active key, so its bytes are the one
 * part of an entry's cost that Sluice controls (docs/grid.md accounts for the rest). It is written
 * by {@link StoredStateSerializer}, a Hazelcast stream serializer: an IdentifiedDataSerializable
 * would add a 9-byte header (flag, factory id, class id) to every copy.
 *
 * <pre>
 *   [format: byte][fingerprint: int32][length: varint][value × length]
 *   format 3: each value a zig-zag varint
 *   format 4: each value a zig-zag varint of (m &lt;&lt; 2 | k), the value being m × 1000^k
 *   format | 0x10: then the reservation ledger, [length: varint][zig-zag varint × length]
 *   format | 0x20: then the policy that wrote the values ({@link WireFormat#writePolicy})
 *   format | 0x40: then the spent receipts, [length: varint][zig-zag varint × length]
 * </pre>
 *
 * Format 4 exists for timestamps: window starts are aligned to the epoch, so a window of whole
 * seconds starts on a multiple of 10^9 ns, and 2026 in epoch seconds needs 5 varint bytes where
 * epoch nanoseconds need 9. Two low bits per value pick the scale (×1, ×10^3, ×10^6, ×10^9), which
 * costs small counts nothing below 16. The writer works out both sizes and writes the shorter, so
 * states of arbitrary nanoseconds (a token bucket's last refill, a GCRA arrival time) keep format
 * 3. A sliding_window state (window start, current, previous) of a one-minute rule takes 1 + 4 + 1
 * + 5 + 1 + 1 = 13 bytes.
 */
public final class StateFormat {
  static final int FORMAT_VARINT = 3;
  static final int FORMAT_SCALED = 4;

  /**
   * Set on the format byte when the key holds reservations: their {@link ReservationLedger} follows
   * the values, as {@code [length: varint][value × length]} in zig-zag varints.
   */
  static final int WITH_RESERVATIONS = 0x10;

  /**
   * Set on the format byte when the state keeps the policy that wrote it ({@link
   * StoredState#writer()}: an inline policy's under a state name); the policy follows the values
   * and the ledger.
   */
  static final int WITH_WRITER = 0x20;

  /**
   * Set on the format byte when the key remembers receipts given back on it: their {@link
   * SpentReceipts} follow (after the ledger and the writer, if any), as {@code [length:
   * varint][value × length]} in zig-zag varints.
   */
  static final int WITH_SPENT_RECEIPTS = 0x40;

  /** 1000^k for each scale code k. */
  private static final long[] SCALES = {1L, 1_000L, 1_000_000L, 1_000_000_000L};

  private StateFormat() {}

  /** Writes the stored format, the shorter of its two value encodings. */
  public static void write(ObjectDataOutput out, StoredState stored) throws IOException {
    long[] state = stored.values();
    boolean scaled = scaledSize(state) < varintSize(state);
    long[] ledger = stored.reservations();
    long[] spent = stored.spentReceipts();
    out.writeByte(
        (scaled ? FORMAT_SCALED : FORMAT_VARINT)
            | (ledger.length > 0 ? WITH_RESERVATIONS : 0)
            | (stored.writer() != null ? WITH_WRITER : 0)
            | (spent.length > 0 ? WITH_SPENT_RECEIPTS : 0));
    out.writeInt(stored.fingerprint());
    WireFormat.writeVarInt(out, state.length);
    for (long value : state) {
      if (scaled) {
        WireFormat.writeUnsignedVarLong(out, scaledCode(value));
      } else {
        WireFormat.writeVarLong(out, value);
      }
    }
    if (ledger.length > 0) {
      WireFormat.writeVarInt(out, ledger.length);
      for (long value : ledger) {
        WireFormat.writeVarLong(out, value);
      }
    }
    if (stored.writer() != null) {
      WireFormat.writePolicy(out, stored.writer());
    }
    if (spent.length > 0) {
      WireFormat.writeVarInt(out, spent.length);
      for (long value : spent) {
        WireFormat.writeVarLong(out, value);
      }
    }
  }

  public static StoredState read(ObjectDataInput in) throws IOException {
    int flagged = in.readByte();
    int format = flagged & ~(WITH_RESERVATIONS | WITH_WRITER | WITH_SPENT_RECEIPTS);
    if (format != FORMAT_VARINT && format != FORMAT_SCALED) {
      throw new IOException("unknown state format " + format);
    }
    int fingerprint = in.readInt();
    long[] state = new long[checkLength(WireFormat.readVarInt(in))];
    for (int i = 0; i < state.length; i++) {
      state[i] =
          format == FORMAT_SCALED
              ? fromScaledCode(WireFormat.readUnsignedVarLong(in))
              : WireFormat.readVarLong(in);
    }
    long[] ledger = ReservationLedger.EMPTY;
    if ((flagged & WITH_RESERVATIONS) != 0) {
      ledger = new long[WireFormat.readVarInt(in)];
      if (!ReservationLedger.wellFormed(ledger)) {
        throw new IOException("implausible reservation ledger length " + ledger.length);
      }
      for (int i = 0; i < ledger.length; i++) {
        ledger[i] = WireFormat.readVarLong(in);
      }
    }
    Policy writer = (flagged & WITH_WRITER) != 0 ? WireFormat.readPolicy(in) : null;
    long[] spent = SpentReceipts.EMPTY;
    if ((flagged & WITH_SPENT_RECEIPTS) != 0) {
      spent = new long[WireFormat.readVarInt(in)];
      if (spent.length == 0 || !SpentReceipts.wellFormed(spent)) {
        throw new IOException("implausible spent receipts length " + spent.length);
      }
      for (int i = 0; i < spent.length; i++) {
        spent[i] = WireFormat.readVarLong(in);
      }
    }
    return new StoredState(fingerprint, state, ledger, spent, writer);
  }

  private static int varintSize(long[] state) {
    int size = 0;
    for (long value : state) {
      size += WireFormat.unsignedVarLongSize(WireFormat.zigZag(value));
    }
    return size;
  }

  /** The size of format 4's values, or {@code Integer.MAX_VALUE} if one does not fit it. */
  private static int scaledSize(long[] state) {
    int size = 0;
    for (long value : state) {
      long code = scaledCode(value);
      if (code == -1) {
        return Integer.MAX_VALUE;
      }
      size += WireFormat.unsignedVarLongSize(code);
    }
    return size;
  }

  /**
   * {@code zigZag(m) << 2 | k} for the largest k with {@code value = m × 1000^k}, or -1 when that
   * does not fit 63 bits (|m| ≥ 2^60, so k = 0: unaligned epoch nanoseconds, sentinels). Format 3
   * is as short for those anyway.
   */
  static long scaledCode(long value) {
    int k = SCALES.length - 1;
    while (k > 0 && (value == 0 || value % SCALES[k] != 0)) {
      k--;
    }
    long zigZag = WireFormat.zigZag(value / SCALES[k]);
    return (zigZag >>> 61) != 0 ? -1 : zigZag << 2 | k;
  }

  static long fromScaledCode(long code) throws IOException {
    try {
      return Math.multiplyExact(WireFormat.unZigZag(code >>> 2), SCALES[(int) (code & 3)]);
    } catch (ArithmeticException e) {
      throw new IOException("scaled state value out of range: code " + Long.toUnsignedString(code));
    }
  }

  private static int checkLength(int length) throws IOException {
    // The largest layout is the sliding log: a few header longs plus one timestamp per permit of
    // its limit. The bound is the highest cap any member may configure, not this JVM's, so members
    // configured differently still read each other's states.
    if (length < 0 || length > Policy.MAX_LIMITS * (Limit.SLIDING_LOG_MAX_LIMIT_CEILING + 64)) {
      throw new IOException("implausible state length " + length);
    }
    return length;
  }
}
