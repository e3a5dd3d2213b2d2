package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import java.io.IOException;
import java.util.Arrays;

/**
 * A key's state in the state map: the algorithm's {@code long[]} and a fingerprint of the policy
 * parts that give the numbers their meaning. No configuration is stored: the limit, burst and flags
 * come from the rule on every decision, so changing a limit needs no migration.
 *
 * <h2>Fingerprint</h2>
 *
 * A 32-bit hash of (algorithm, window, buckets for sliding_buckets). Counts taken under one window
 * mean nothing under another, so a state whose fingerprint differs from the current policy's is
 * ignored and the key starts afresh. A changed limit keeps the fingerprint, and the algorithm's
 * {@code fit} adapts the counters. A collision (one in 2^32) would only mean reading old counters
 * under new math, which every algorithm tolerates since it re-derives windows from {@code now}.
 *
 * <h2>Format (versioned; the first byte)</h2>
 *
 * <pre>
 *   v1  [1][fingerprint: int32][length: int32][long64 × length]            (frozen, read only)
 *   v2  [2][fingerprint: int32][length: varint][zig-zag varint × length]   (written)
 * </pre>
 *
 * A sliding_window state (window start, current, previous) takes 4 + 1 + 9 + 1 + 1 = 17 bytes in v2
 * against 33 in v1. Tests keep a v1 fixture and read it.
 */
public final class GridState implements IdentifiedDataSerializable {
  static final int FORMAT_V1 = 1;
  static final int FORMAT_V2 = 2;

  private int fingerprint;
  private long[] state;

  /** For deserialization. */
  public GridState() {
    this.state = new long[0];
  }

  public GridState(int fingerprint, long[] state) {
    this.fingerprint = fingerprint;
    this.state = state;
  }

  /** The fingerprint of the policy parts a stored state depends on; see the class comment. */
  public static int fingerprint(Policy policy) {
    int hash = policy.algorithm().wireName().hashCode();
    hash = hash * 31 + Long.hashCode(policy.windowNanos());
    if (policy.algorithm() == Algorithm.SLIDING_BUCKETS) {
      hash = hash * 31 + policy.buckets();
    }
    // Murmur3's finalizer spreads nearby windows (1s vs 2s) over all 32 bits.
    hash ^= hash >>> 16;
    hash *= 0x85ebca6b;
    hash ^= hash >>> 13;
    hash *= 0xc2b2ae35;
    hash ^= hash >>> 16;
    return hash;
  }

  public int fingerprint() {
    return fingerprint;
  }

  /** The algorithm state. Callers that apply an algorithm to it copy it first. */
  public long[] state() {
    return state;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.STATE;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT_V2);
    out.writeInt(fingerprint);
    WireFormat.writeVarInt(out, state.length);
    for (long value : state) {
      WireFormat.writeVarLong(out, value);
    }
  }

  /** Writes the frozen v1 format; kept only so tests can show v1 is still read. */
  void writeDataV1(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT_V1);
    out.writeInt(fingerprint);
    out.writeInt(state.length);
    for (long value : state) {
      out.writeLong(value);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    fingerprint = in.readInt();
    switch (format) {
      case FORMAT_V1 -> {
        state = new long[checkLength(in.readInt())];
        for (int i = 0; i < state.length; i++) {
          state[i] = in.readLong();
        }
      }
      case FORMAT_V2 -> {
        state = new long[checkLength(WireFormat.readVarInt(in))];
        for (int i = 0; i < state.length; i++) {
          state[i] = WireFormat.readVarLong(in);
        }
      }
      default -> throw new IOException("unknown state format version " + format);
    }
  }

  private static int checkLength(int length) throws IOException {
    // The largest layout is the sliding log: a few header longs plus one timestamp per permit of
    // its limit. The bound is the highest cap any member may configure, not this JVM's, so members
    // configured differently still read each other's states.
    if (length < 0 || length > Policy.SLIDING_LOG_MAX_LIMIT_CEILING + 64) {
      throw new IOException("implausible state length " + length);
    }
    return length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GridState other
        && fingerprint == other.fingerprint
        && Arrays.equals(state, other.state);
  }

  @Override
  public int hashCode() {
    return 31 * fingerprint + Arrays.hashCode(state);
  }

  @Override
  public String toString() {
    return "GridState{fingerprint=" + fingerprint + ", state=" + Arrays.toString(state) + '}';
  }
}
