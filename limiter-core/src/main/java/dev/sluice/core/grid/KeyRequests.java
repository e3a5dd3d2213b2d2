package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Policy;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The requests an {@link AcquireProcessor} carries for one key, in the order they are decided:
 * under a named rule or an inline policy, with each request's permits.
 *
 * <p>The transient fields are the owner's working memory between deciding and handing the result to
 * the backup: only the partition thread that owns {@link #partitionId} touches them.
 */
final class KeyRequests {
  final String key;
  final int partitionId;
  final @Nullable String rule;
  final @Nullable Policy policy;
  final long[] permits;

  /** The state to store after deciding, or null when nothing changed. */
  transient @Nullable GridState written;

  transient long ttlMillis;

  KeyRequests(
      String key, int partitionId, @Nullable String rule, @Nullable Policy policy, long[] permits) {
    this.key = key;
    this.partitionId = partitionId;
    this.rule = rule;
    this.policy = policy;
    this.permits = permits;
  }

  void writeTo(ObjectDataOutput out) throws IOException {
    out.writeString(key);
    WireFormat.writeVarInt(out, partitionId);
    if (rule != null) {
      out.writeByte(0);
      out.writeString(rule);
    } else {
      out.writeByte(1);
      WireFormat.writePolicy(out, Objects.requireNonNull(policy));
    }
    WireFormat.writeVarInt(out, permits.length);
    for (long p : permits) {
      WireFormat.writeVarLong(out, p);
    }
  }

  static KeyRequests readFrom(ObjectDataInput in) throws IOException {
    String key = Objects.requireNonNull(in.readString(), "key");
    int partitionId = WireFormat.readVarInt(in);
    int tag = in.readByte();
    String rule = null;
    Policy policy = null;
    if (tag == 0) {
      rule = Objects.requireNonNull(in.readString(), "rule");
    } else if (tag == 1) {
      policy = WireFormat.readPolicy(in);
    } else {
      throw new IOException("unknown request tag " + tag);
    }
    int count = WireFormat.readVarInt(in);
    if (count < 0 || count > AcquireProcessor.MAX_REQUESTS_PER_KEY) {
      throw new IOException("implausible request count " + count);
    }
    long[] permits = new long[count];
    for (int i = 0; i < count; i++) {
      permits[i] = WireFormat.readVarLong(in);
    }
    return new KeyRequests(key, partitionId, rule, policy, permits);
  }
}
