package dev.sluice.core.grid.member;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Policy;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Puts (policy given) or removes (no policy: writes a tombstone) a rule in the rules map, bumping
 * the version and keeping former policies of other shapes ({@link RuleRecord#next}) in the same
 * atomic step, and answers the new record. Rules change rarely, so the backup simply re-runs this
 * processor: it reads no clock and is deterministic.
 */
public final class RuleUpdateProcessor
    implements EntryProcessor<String, RuleRecord, RuleRecord>, IdentifiedDataSerializable {
  private static final int FORMAT = 1;

  private @Nullable Policy policy;

  /** For deserialization. */
  public RuleUpdateProcessor() {}

  public RuleUpdateProcessor(@Nullable Policy policy) {
    this.policy = policy;
  }

  /**
   * Answers the record written, or the existing one (unchanged) when removing a rule that is
   * already absent, so the caller can tell whether there was a live rule.
   */
  @Override
  public RuleRecord process(Map.Entry<String, RuleRecord> entry) {
    RuleRecord current = entry.getValue();
    if (policy == null && (current == null || current.isRemoved())) {
      return current != null ? current : new RuleRecord(entry.getKey(), null, 0);
    }
    RuleRecord next =
        current == null ? new RuleRecord(entry.getKey(), policy, 1) : current.next(policy);
    entry.setValue(next);
    return next;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.RULE_UPDATE;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    out.writeBoolean(policy != null);
    if (policy != null) {
      WireFormat.writePolicy(out, policy);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown rule update format " + format);
    }
    policy = in.readBoolean() ? WireFormat.readPolicy(in) : null;
  }
}
