package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.StateKey;
import dev.sluice.core.decision.ReservationLedger;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One partition's share of a sweep ({@link StateSweeper}): removes every rule state that decides
 * exactly as an absent key would, on the partition's owner, in one partition-wide step.
 *
 * <h2>What it removes</h2>
 *
 * A state is removed when the algorithm of the policy that wrote it says it is fresh ({@link
 * dev.sluice.core.algorithm.LimiterAlgorithm#untilFreshNanos} is 0) at the owner's {@code now} less
 * {@link StateSweeper#MARGIN_NANOS}: the member's clock is read once, on the owner, when the step
 * starts. The margin keeps a state for a second longer than it counts, for a clock that steps back
 * a little or a partition that moves to a member whose clock is behind, as the TTL's extra second
 * did. The policy comes from the member's local rules copy by the state's fingerprint: the rule's
 * current policy or one of its former ones ({@link MemberContext#removable}). A state of a shape
 * the rule no longer remembers is removed too: a decision would start it afresh anyway
 * (docs/grid.md). Inline policies' states keep their TTL and are left alone here (but those under a
 * state name, which keep their writer); nothing is swept while the member's rules copy is still
 * loading.
 *
 * <h2>Backups</h2>
 *
 * The backup replica removes exactly the keys the owner removed ({@link
 * StoreStatesBackup#removing}): it neither reads its own clock nor its own rules copy, so it can
 * never keep or drop a state its owner did not. Hazelcast asks for the backup processor on the
 * partition thread right after this step, and sends none when nothing was removed. Each sweep step
 * is a new processor for one partition, so one instance never serves two partition threads at once.
 */
public final class SweepProcessor
    implements EntryProcessor<String, StateValue, Object>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware {
  private static final int FORMAT = 1;

  private transient @Nullable MemberContext context;
  private transient long sweepAtNanos;
  private transient boolean started;
  private final transient List<String> removed = new ArrayList<>();

  /** For the sweeper, and deserialization. */
  public SweepProcessor() {}

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public @Nullable Object process(Map.Entry<String, StateValue> entry) {
    MemberContext member = context;
    if (member == null || !member.rulesLoaded()) {
      return null;
    }
    if (!started) {
      started = true;
      sweepAtNanos = member.timeSource().nowNanos() - StateSweeper.MARGIN_NANOS;
    }
    String key = entry.getKey();
    if (StateKey.isInline(key) && !StateKey.isUnderName(key)) {
      return null;
    }
    StateValue value = entry.getValue();
    if (value != null && member.removable(key, value.toStored(), sweepAtNanos)) {
      member.countSettledAtEstimate(
          ReservationLedger.expiredOpen(value.toStored().reservations(), sweepAtNanos));
      entry.setValue(null);
      removed.add(key);
      member.sweeper().countRemoved(1);
    }
    return null;
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, Object> getBackupProcessor() {
    return removed.isEmpty() ? null : StoreStatesBackup.removing(removed.toArray(new String[0]));
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.SWEEP;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown sweep format " + format);
    }
  }
}
