package dev.sluice.bench.memory;

import com.hazelcast.internal.nio.BufferObjectDataInput;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import java.io.IOException;
import java.util.Arrays;

/**
 * Candidate (c): a state key as a short rule id and the subject's UTF-8 bytes, instead of the
 * String {@code <rule>|<subject>}.
 *
 * <pre>
 *   String key "mem|m123456":  [partition hash 4][type 4][length 4][11 chars as UTF-8]  = 23 B
 *   CompactKey (1, "m123456"): [partition hash 4][type 4][rule id: varint][7 bytes]      = 16 B
 * </pre>
 *
 * Hazelcast keeps each key as a {@code HeapData} (16 B) over a byte array (16 B header plus the
 * payload, rounded up to 8), so the 23-byte payload takes a 40-byte array and the 16-byte one a
 * 32-byte array: 8 B saved per copy for this key. A saving only shows when it crosses an 8-byte
 * boundary; for the probe's keys ({@code m0} to {@code m999999}) it always does. What goes is the
 * rule name, its separator and the String's 4-byte length (here 4 + 4 bytes) for one id byte, so a
 * longer rule name saves more.
 *
 * <p>The subject is the rest of the serialized key, so it carries no length. That needs the input's
 * remaining byte count, which Hazelcast's array-backed input gives (its {@code skipBytes} stops at
 * the end of the buffer); it holds because a key is always serialized on its own, never inside
 * another object's stream. A product version would either rely on the same thing or pay one length
 * byte (which for these keys would cost the 8 B back).
 *
 * <p>The rule id stands for (rule, window, algorithm): a rule whose window or algorithm changes
 * takes a new id, so its keys' old states are simply never read again and the sweep removes them;
 * that is what lets {@link TightState} drop the policy fingerprint.
 */
final class CompactKey {
  final int ruleId;
  final byte[] subject;

  CompactKey(int ruleId, byte[] subject) {
    this.ruleId = ruleId;
    this.subject = subject;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CompactKey other
        && ruleId == other.ruleId
        && Arrays.equals(subject, other.subject);
  }

  @Override
  public int hashCode() {
    return 31 * ruleId + Arrays.hashCode(subject);
  }

  static final class Serializer implements StreamSerializer<CompactKey> {
    @Override
    public int getTypeId() {
      return BenchSerialization.COMPACT_KEY_TYPE_ID;
    }

    @Override
    public void write(ObjectDataOutput out, CompactKey key) throws IOException {
      int id = key.ruleId;
      while ((id & ~0x7F) != 0) {
        out.writeByte((id & 0x7F) | 0x80);
        id >>>= 7;
      }
      out.writeByte(id);
      out.write(key.subject);
    }

    @Override
    public CompactKey read(ObjectDataInput in) throws IOException {
      int id = 0;
      for (int shift = 0; ; shift += 7) {
        int b = in.readUnsignedByte();
        id |= (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          break;
        }
      }
      if (!(in instanceof BufferObjectDataInput buffer)) {
        throw new IOException("a CompactKey must be read from its own serialized form");
      }
      // The rest of the buffer is the subject: skip to its end to learn its length, then back.
      int start = buffer.position();
      int length = buffer.skipBytes(Integer.MAX_VALUE - start); // start + n must not overflow
      buffer.position(start);
      byte[] subject = new byte[length];
      in.readFully(subject);
      return new CompactKey(id, subject);
    }
  }
}
