package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.io.IOException;
import java.time.Duration;

/**
 * Compact encodings shared by the serialized types: variable-length integers (LEB128, 7 bits per
 * byte, zig-zag for signed values), policies and decisions.
 *
 * <p>Why varints: a sliding_window state is three longs, of which two are small counts. Written as
 * fixed longs that is 24 bytes; as zig-zag varints a count below 64 is one byte, and the window
 * start (epoch nanoseconds, 61 bits) is nine, five in {@link GridState}'s scaled format when it is
 * a whole second. Every byte saved is saved twice per key (owner and backup).
 */
final class WireFormat {
  private WireFormat() {}

  static void writeVarLong(ObjectDataOutput out, long value) throws IOException {
    writeUnsignedVarLong(out, zigZag(value));
  }

  static long readVarLong(ObjectDataInput in) throws IOException {
    return unZigZag(readUnsignedVarLong(in));
  }

  /** Zig-zag maps signed to unsigned so small magnitudes of either sign take few bytes. */
  static long zigZag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  static long unZigZag(long zigZag) {
    return (zigZag >>> 1) ^ -(zigZag & 1);
  }

  /** Writes {@code value} as unsigned, 7 bits per byte, low bits first. */
  static void writeUnsignedVarLong(ObjectDataOutput out, long value) throws IOException {
    while ((value & ~0x7FL) != 0) {
      out.writeByte((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.writeByte((int) value);
  }

  static long readUnsignedVarLong(ObjectDataInput in) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.readByte();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IOException("malformed varint: more than 10 bytes");
  }

  /** The bytes {@link #writeUnsignedVarLong} writes for {@code value}. */
  static int unsignedVarLongSize(long value) {
    return (64 - Long.numberOfLeadingZeros(value | 1) + 6) / 7;
  }

  static void writeVarInt(ObjectDataOutput out, int value) throws IOException {
    writeVarLong(out, value);
  }

  static int readVarInt(ObjectDataInput in) throws IOException {
    long value = readVarLong(in);
    if (value != (int) value) {
      throw new IOException("malformed varint: " + value + " does not fit an int");
    }
    return (int) value;
  }

  private static final int SHADOW = 1;
  private static final int COUNT_DENIED = 2;

  static void writePolicy(ObjectDataOutput out, Policy policy) throws IOException {
    out.writeByte(policy.algorithm().ordinal());
    writeVarLong(out, policy.limit());
    writeVarLong(out, policy.windowNanos());
    writeVarLong(out, policy.burst());
    writeVarInt(out, policy.buckets());
    out.writeByte((policy.shadow() ? SHADOW : 0) | (policy.countDenied() ? COUNT_DENIED : 0));
  }

  /** Reads a policy; its constructor validates it again, so a corrupt one fails loudly. */
  static Policy readPolicy(ObjectDataInput in) throws IOException {
    int ordinal = in.readByte();
    Algorithm[] algorithms = Algorithm.values();
    if (ordinal < 0 || ordinal >= algorithms.length) {
      throw new IOException("unknown algorithm ordinal " + ordinal);
    }
    long limit = readVarLong(in);
    Duration window = Duration.ofNanos(readVarLong(in));
    long burst = readVarLong(in);
    int buckets = readVarInt(in);
    int flags = in.readByte();
    return new Policy(
        algorithms[ordinal],
        limit,
        window,
        burst,
        buckets,
        (flags & SHADOW) != 0,
        (flags & COUNT_DENIED) != 0);
  }

  private static final int ALLOWED = 1;
  private static final int SHADOW_DENIED = 2;

  static void writeDecision(ObjectDataOutput out, Decision decision) throws IOException {
    out.writeByte(
        (decision.allowed() ? ALLOWED : 0) | (decision.shadowDenied() ? SHADOW_DENIED : 0));
    out.writeByte(decision.decidedBy().ordinal());
    writeVarLong(out, decision.limit());
    writeVarLong(out, decision.remaining());
    writeVarLong(out, decision.retryAfterNanos());
    writeVarLong(out, decision.resetAfterNanos());
    writeVarLong(out, decision.delayNanos());
  }

  static Decision readDecision(ObjectDataInput in) throws IOException {
    int flags = in.readByte();
    int decidedBy = in.readByte();
    Decision.DecidedBy[] values = Decision.DecidedBy.values();
    if (decidedBy < 0 || decidedBy >= values.length) {
      throw new IOException("unknown decidedBy ordinal " + decidedBy);
    }
    return new Decision(
        (flags & ALLOWED) != 0,
        readVarLong(in),
        readVarLong(in),
        readVarLong(in),
        readVarLong(in),
        readVarLong(in),
        (flags & SHADOW_DENIED) != 0,
        values[decidedBy]);
  }
}
