package dev.sluice.bench.memory;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Candidate (d): a sliding_window state in 7 bytes instead of {@code StoredState}'s 13, as a value
 * type whose serializer writes nothing but those bytes.
 *
 * <pre>
 *   [format: byte = 1][window index: varint][current: varint][previous: varint]
 *   window index = window start / W   (starts are aligned to the window, docs/algorithms.md)
 * </pre>
 *
 * For a window of one or ten minutes in 2026 the index is 29.6 or 2.96 million, four varint bytes
 * either way; a count under 128 takes one. What it leaves out is {@code StoredState}'s 4-byte
 * policy fingerprint and its length byte: the design that uses it moves the policy's identity into
 * the key (a rule id that changes when the rule's window or algorithm does, see {@link
 * CompactKey}), so a state never has to be checked against the policy it was written under. With a
 * String key the fingerprint would have to stay, and 4 more bytes put the serialized value over the
 * 16-byte payload that fits a 32-byte array: no saving at all (docs/memory.md).
 *
 * <p>The serialized form (a {@code HeapData} payload of 8 + 7 = 15 bytes, a 32-byte array) is what
 * a BINARY map stores. In an OBJECT map the stored object would be this wrapper plus its array, so
 * OBJECT candidates store the raw {@code byte[]} instead ({@link StateCodec#BYTES}).
 */
final class TightState {
  static final int FORMAT = 1;

  final byte[] bytes;

  TightState(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Encodes a sliding_window {@code long[] {start, current, previous}} of window {@code W}. */
  static byte[] encode(long[] state, long windowNanos) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8);
    out.write(FORMAT);
    Varints.write(out, Math.floorDiv(state[0], windowNanos));
    Varints.write(out, state[1]);
    Varints.write(out, state[2]);
    return out.toByteArray();
  }

  static long[] decode(byte[] bytes, long windowNanos) {
    if (bytes.length == 0 || bytes[0] != FORMAT) {
      throw new IllegalArgumentException("unknown tight state format");
    }
    Varints.Reader in = new Varints.Reader(bytes, 1);
    return new long[] {in.next() * windowNanos, in.next(), in.next()};
  }

  /** Writes the bytes as they are: they delimit themselves (a format byte and three varints). */
  static final class Serializer implements StreamSerializer<TightState> {
    @Override
    public int getTypeId() {
      return BenchSerialization.TIGHT_STATE_TYPE_ID;
    }

    @Override
    public void write(ObjectDataOutput out, TightState state) throws IOException {
      out.write(state.bytes);
    }

    @Override
    public TightState read(ObjectDataInput in) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(8);
      int format = in.readUnsignedByte();
      if (format != FORMAT) {
        throw new IOException("unknown tight state format " + format);
      }
      bytes.write(format);
      for (int i = 0; i < 3; i++) {
        int b;
        do {
          b = in.readUnsignedByte();
          bytes.write(b);
        } while ((b & 0x80) != 0);
      }
      return new TightState(bytes.toByteArray());
    }
  }
}
