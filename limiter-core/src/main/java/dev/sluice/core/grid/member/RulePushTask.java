package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import java.io.IOException;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Runs on every member after a rule change and applies the new record to the member's local copy,
 * so the change is in force everywhere when {@code GridRuleStore.put} returns. Answers whether the
 * member runs Sluice.
 */
public final class RulePushTask
    implements Callable<Boolean>, IdentifiedDataSerializable, HazelcastInstanceAware {
  private static final int FORMAT = 1;

  private RuleRecord record = new RuleRecord();
  private transient @Nullable HazelcastInstance member;

  /** For deserialization. */
  public RulePushTask() {}

  public RulePushTask(RuleRecord record) {
    this.record = record;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.member = hazelcastInstance;
  }

  @Override
  public Boolean call() {
    HazelcastInstance self = member;
    MemberContext context = self == null ? null : MemberContext.of(self);
    if (context == null) {
      return false;
    }
    context.apply(record);
    return true;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.RULE_PUSH;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    record.writeData(out);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown rule push format " + format);
    }
    record = new RuleRecord();
    record.readData(in);
  }
}
