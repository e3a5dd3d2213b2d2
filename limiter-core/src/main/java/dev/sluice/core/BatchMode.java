package dev.sluice.core;

/** How a batch of checks is decided. */
public enum BatchMode {
  /** Each check on its own: some may be admitted while others are denied (the default). */
  EACH,
  /**
   * Every check or none: when one is denied, the permits the others took are given back before the
   * answer, and the answer names the check that denied.
   */
  ALL;

  /** The name used in JSON, {@code each} or {@code all}. */
  public String wireName() {
    return WireEnums.wireName(this);
  }

  /**
   * The mode with this wire name.
   *
   * @throws InvalidPolicyException naming the field {@code mode}
   */
  public static BatchMode fromWireName(String name) {
    return WireEnums.fromWireName(values(), name, "mode");
  }
}
