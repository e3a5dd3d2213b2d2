package dev.sluice.core.grid.wire;

/**
 * The names of the distributed objects every member and client of a Sluice grid must agree on: like
 * the serialization ids ({@link SluiceSerializationIds}), part of what two builds share, so never
 * renamed, only added to.
 */
public final class GridNames {
  private GridNames() {}

  /** The partitioned map of key states. */
  public static final String STATE_MAP = "sluice.state";

  /** The map of named rules ({@link RuleRecord}). */
  public static final String RULES_MAP = "sluice.rules";

  /**
   * The map that holds the grid's receipt secret ({@code ClusterReceiptKey}): one small entry,
   * backed up on as many members as Hazelcast allows, so that losing members loses no receipt.
   */
  public static final String SECRETS_MAP = "sluice.secrets";

  /** The executor that pushes rule changes to every member. */
  public static final String EXECUTOR = "sluice.rules.push";
}
