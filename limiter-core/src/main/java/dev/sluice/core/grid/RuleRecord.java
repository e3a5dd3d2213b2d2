package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A named rule as the rules map stores it, with a version that grows by one on every change. A
 * removed rule stays as a tombstone (no policy) so its version keeps growing if it comes back:
 * local copies apply a record only when its version is newer, and a tombstone makes that order
 * total even across remove and re-add.
 */
public final class RuleRecord implements IdentifiedDataSerializable {
  private String name;
  private @Nullable Policy policy;
  private long version;

  /** For deserialization. */
  public RuleRecord() {
    this.name = "";
  }

  public RuleRecord(String name, @Nullable Policy policy, long version) {
    this.name = name;
    this.policy = policy;
    this.version = version;
  }

  public String name() {
    return name;
  }

  /** The policy, or null for a removed rule (a tombstone). */
  public @Nullable Policy policy() {
    return policy;
  }

  public long version() {
    return version;
  }

  public boolean isRemoved() {
    return policy == null;
  }

  /** The rule, for a live record. */
  public Rule toRule() {
    return new Rule(name, Objects.requireNonNull(policy, "removed rule"));
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.RULE_RECORD;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeString(name);
    WireFormat.writeVarLong(out, version);
    out.writeBoolean(policy != null);
    if (policy != null) {
      WireFormat.writePolicy(out, policy);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    name = Objects.requireNonNull(in.readString(), "name");
    version = WireFormat.readVarLong(in);
    policy = in.readBoolean() ? WireFormat.readPolicy(in) : null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleRecord other
        && name.equals(other.name)
        && version == other.version
        && Objects.equals(policy, other.policy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, policy, version);
  }

  @Override
  public String toString() {
    return "RuleRecord{" + name + " v" + version + ", " + policy + '}';
  }
}
