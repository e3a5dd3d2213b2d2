package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Policy;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reports a key's state as a request for 0 permits would see it, at the owner's {@code now}. {@link
 * ReadOnly}: it never writes, so Hazelcast skips the write path and there is no backup.
 */
public final class PeekProcessor
    implements EntryProcessor<String, GridState, KeyOutcome>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware,
        ReadOnly {
  private static final long[] PEEK = {0};

  private @Nullable String rule;
  private @Nullable Policy policy;
  private transient @Nullable MemberContext context;

  /** For deserialization. */
  public PeekProcessor() {}

  PeekProcessor(@Nullable String rule, @Nullable Policy policy) {
    this.rule = rule;
    this.policy = policy;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public KeyOutcome process(Map.Entry<String, GridState> entry) {
    return Decider.decide(context, rule, policy, entry.getValue(), PEEK).outcome();
  }

  @Override
  public @Nullable EntryProcessor<String, GridState, KeyOutcome> getBackupProcessor() {
    return null;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.PEEK;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    if (rule != null) {
      out.writeByte(0);
      out.writeString(rule);
    } else {
      out.writeByte(1);
      WireFormat.writePolicy(out, Objects.requireNonNull(policy));
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int tag = in.readByte();
    if (tag == 0) {
      rule = in.readString();
    } else if (tag == 1) {
      policy = WireFormat.readPolicy(in);
    } else {
      throw new IOException("unknown peek tag " + tag);
    }
  }
}
