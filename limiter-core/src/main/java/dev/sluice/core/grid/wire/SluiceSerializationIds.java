package dev.sluice.core.grid.wire;

/**
 * Every Hazelcast serialization id Sluice uses, in one place (CONVENTIONS §7). Ids are part of the
 * wire and storage format: never renumber one, only add.
 */
public final class SluiceSerializationIds {
  /** The one {@code SluiceDataSerializableFactory} id. "SLCE" on a phone keypad, roughly. */
  public static final int FACTORY_ID = 7_582_300;

  /**
   * Retired: the stored state was IdentifiedDataSerializable in builds that never shipped; it now
   * has {@link #STATE_TYPE_ID}. Never reuse the number.
   */
  public static final int RETIRED_STATE = 1;

  /**
   * Retired: the processor of the first release, which carried permits only; {@code
   * DecideProcessor} has {@link #DECIDE}. Never reuse the number.
   */
  public static final int RETIRED_ACQUIRE = 2;

  /**
   * {@code StoreStatesBackup}: stores the states the owner wrote, and removes the keys it swept, on
   * backups.
   */
  public static final int STORE_STATES_BACKUP = 3;

  /** {@code PeekProcessor}: reports a key's state, read-only. */
  public static final int PEEK = 4;

  /**
   * Retired: the answers for one key were IdentifiedDataSerializable in the first release; they are
   * a pipeline type now, with {@link #KEY_OUTCOME_TYPE_ID}. Never reuse the number.
   */
  public static final int RETIRED_KEY_OUTCOME = 5;

  /** {@link RuleRecord}: a named rule with its version, the value of the rules map. */
  public static final int RULE_RECORD = 6;

  /** {@code RuleUpdateProcessor}: puts or removes a rule, bumping its version atomically. */
  public static final int RULE_UPDATE = 7;

  /** {@code RulePushTask}: hands a changed rule to every member's local copy. */
  public static final int RULE_PUSH = 8;

  /** {@code MostConsumedMergePolicy}: heals the state map after a split brain. */
  public static final int MOST_CONSUMED_MERGE_POLICY = 9;

  /** {@code DecideProcessor}: decides one or more keys' operations. */
  public static final int DECIDE = 10;

  /** {@code SweepProcessor}: removes a partition's idle states on its owner. */
  public static final int SWEEP = 11;

  /**
   * Retired: a sweep's backup had a type of its own in builds that never shipped; it is a {@link
   * #STORE_STATES_BACKUP} of removals now. Never reuse the number.
   */
  public static final int RETIRED_SWEEP_BACKUP = 12;

  /** {@code NodeStatsTask}: a member's console stats, for {@code GridStatsView}. */
  public static final int NODE_STATS = 13;

  /** {@code RegionBudgetProcessor}: a step on a key's regional budget. */
  public static final int REGION_BUDGET = 14;

  /** {@code RegionBudgetProcessor.Backup}: the budget the owner computed, stored as it is. */
  public static final int REGION_BUDGET_BACKUP = 15;

  /** {@code RegionBudgetProcessor.Result}: what a step on a regional budget did. */
  public static final int REGION_BUDGET_RESULT = 16;

  /** {@code RegionDecideTask}: a global rule's check, on the key's regional owner. */
  public static final int REGION_DECIDE = 17;

  /**
   * The type id of {@link StoredStateSerializer}: the state map's values ({@link StateValue}, or a
   * {@code StoredState}), in a format without the IdentifiedDataSerializable header. Custom
   * serializer ids must be positive and unique among the serializers of the cluster; this one is
   * the factory id plus one.
   */
  public static final int STATE_TYPE_ID = FACTORY_ID + 1;

  /** The type id of {@link KeyOutcomeSerializer}: one key's answers. */
  public static final int KEY_OUTCOME_TYPE_ID = FACTORY_ID + 2;

  private SluiceSerializationIds() {}
}
