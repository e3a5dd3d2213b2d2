package dev.sluice.core;

import java.util.Locale;

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
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The mode with this wire name.
   *
   * @throws InvalidPolicyException naming the field {@code mode}
   */
  public static BatchMode fromWireName(String name) {
    for (BatchMode mode : values()) {
      if (mode.wireName().equals(name)) {
        return mode;
      }
    }
    throw new InvalidPolicyException("mode", "must be 'each' or 'all', was '" + name + "'");
  }
}
