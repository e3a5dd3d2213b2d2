package dev.sluice.core.grid;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.member.MostConsumedMergePolicy;
import dev.sluice.core.grid.member.NodeStatsTask;
import dev.sluice.core.grid.member.PeekProcessor;
import dev.sluice.core.grid.member.RegionBudgetProcessor;
import dev.sluice.core.grid.member.RulePushTask;
import dev.sluice.core.grid.member.RuleUpdateProcessor;
import dev.sluice.core.grid.member.StoreStatesBackup;
import dev.sluice.core.grid.member.SweepProcessor;
import dev.sluice.core.grid.wire.KeyOutcomeSerializer;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StoredStateSerializer;

/**
 * Creates every IdentifiedDataSerializable Sluice type: all but the state map's values, which have
 * stream serializers ({@link StoredStateSerializer}, {@link KeyOutcomeSerializer}). Registered by
 * {@link SluiceHazelcast} on members and clients; ids live in {@link SluiceSerializationIds}.
 */
public final class SluiceDataSerializableFactory implements DataSerializableFactory {

  @Override
  public IdentifiedDataSerializable create(int classId) {
    return switch (classId) {
      case SluiceSerializationIds.DECIDE -> new DecideProcessor();
      case SluiceSerializationIds.STORE_STATES_BACKUP -> new StoreStatesBackup<>();
      case SluiceSerializationIds.PEEK -> new PeekProcessor();
      case SluiceSerializationIds.RULE_RECORD -> new RuleRecord();
      case SluiceSerializationIds.RULE_UPDATE -> new RuleUpdateProcessor();
      case SluiceSerializationIds.RULE_PUSH -> new RulePushTask();
      case SluiceSerializationIds.MOST_CONSUMED_MERGE_POLICY -> new MostConsumedMergePolicy();
      case SluiceSerializationIds.SWEEP -> new SweepProcessor();
      case SluiceSerializationIds.NODE_STATS -> new NodeStatsTask();
      case SluiceSerializationIds.REGION_BUDGET -> new RegionBudgetProcessor();
      case SluiceSerializationIds.REGION_BUDGET_BACKUP -> new RegionBudgetProcessor.Backup();
      case SluiceSerializationIds.REGION_BUDGET_RESULT -> new RegionBudgetProcessor.Result();
      case SluiceSerializationIds.REGION_DECIDE -> new RegionDecideTask();
      default -> throw new IllegalArgumentException("unknown Sluice class id " + classId);
    };
  }
}
