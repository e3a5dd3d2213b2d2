package dev.sluice.core.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.decision.CompiledPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A named rule as the rules map stores it, with a version that grows by one on every change, and
 * the rule's former policies of other shapes. A removed rule stays as a tombstone (no policy) so
 * its version keeps growing if it comes back: local copies apply a record only when its version is
 * newer, and a tombstone makes that order total even across remove and re-add.
 *
 * <h2>Former policies</h2>
 *
 * When a change gives a rule another state shape (window, algorithm, buckets, list of limits), the
 * keys' states still hold counts of the old shape; the next decision on each key carries its state
 * over, and for that it needs the policy that wrote it ({@link
 * dev.sluice.core.decision.KeyDecision}). So a record keeps the last {@value #MAX_FORMER} policies
 * of other shapes, newest first, tombstones included. A state older than all of them starts afresh;
 * it was written before {@value #MAX_FORMER} shape changes of its rule.
 *
 * <h2>Format</h2>
 *
 * {@code [format 2][name][version][has policy][policy?][former count][former policies]}, policies
 * as {@link WireFormat#writePolicy} writes them.
 */
public final class RuleRecord implements IdentifiedDataSerializable {
  /** Former policies kept per rule. */
  static final int MAX_FORMER = 8;

  private static final int FORMAT = 2;

  private String name;
  private @Nullable Policy policy;
  private long version;
  private List<Policy> former;

  /** For deserialization. */
  public RuleRecord() {
    this.name = "";
    this.former = List.of();
  }

  public RuleRecord(String name, @Nullable Policy policy, long version) {
    this(name, policy, version, List.of());
  }

  public RuleRecord(String name, @Nullable Policy policy, long version, List<Policy> former) {
    this.name = name;
    this.policy = policy;
    this.version = version;
    this.former = List.copyOf(former);
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

  /** The rule's former policies of other shapes, newest first. */
  public List<Policy> former() {
    return former;
  }

  public boolean isRemoved() {
    return policy == null;
  }

  /** The rule, for a live record. */
  public Rule toRule() {
    return new Rule(name, Objects.requireNonNull(policy, "removed rule"));
  }

  /**
   * The record after a change to {@code next} (null: remove): the version bumped, and the policy
   * being replaced kept among the former ones if its shape differs from the new one's (or from the
   * last live shape, across a removal).
   */
  public RuleRecord next(@Nullable Policy next) {
    List<Policy> kept = new ArrayList<>(MAX_FORMER);
    if (policy != null) {
      kept.add(policy);
    }
    for (Policy old : former) {
      if (kept.size() < MAX_FORMER) {
        kept.add(old);
      }
    }
    // Keep one policy per shape, and none of the new policy's own shape: its states need no
    // carrying over.
    List<Policy> distinct = new ArrayList<>(kept.size());
    List<Integer> shapes = new ArrayList<>(kept.size());
    Integer nextShape = next == null ? null : CompiledPolicy.fingerprint(next);
    for (Policy old : kept) {
      int shape = CompiledPolicy.fingerprint(old);
      if (!shapes.contains(shape) && !Objects.equals(nextShape, shape)) {
        shapes.add(shape);
        distinct.add(old);
      }
    }
    return new RuleRecord(name, next, version + 1, distinct);
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
    out.writeByte(FORMAT);
    out.writeString(name);
    WireFormat.writeVarLong(out, version);
    out.writeBoolean(policy != null);
    if (policy != null) {
      WireFormat.writePolicy(out, policy);
    }
    WireFormat.writeVarInt(out, former.size());
    for (Policy old : former) {
      WireFormat.writePolicy(out, old);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown rule record format " + format);
    }
    name = Objects.requireNonNull(in.readString(), "name");
    version = WireFormat.readVarLong(in);
    policy = in.readBoolean() ? WireFormat.readPolicy(in) : null;
    int count = WireFormat.readVarInt(in);
    if (count < 0 || count > MAX_FORMER) {
      throw new IOException("implausible former policy count " + count);
    }
    List<Policy> read = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      read.add(WireFormat.readPolicy(in));
    }
    former = List.copyOf(read);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleRecord other
        && name.equals(other.name)
        && version == other.version
        && Objects.equals(policy, other.policy)
        && former.equals(other.former);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, policy, version, former);
  }

  @Override
  public String toString() {
    return "RuleRecord{" + name + " v" + version + ", " + policy + ", former " + former + '}';
  }
}
