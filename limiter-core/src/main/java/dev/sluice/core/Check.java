package dev.sluice.core;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request for permits in a batch: either against a named rule or with an inline policy
 * (redis-cell style), never both.
 */
public record Check(@Nullable String rule, @Nullable Policy policy, String key, long permits) {

  public Check {
    if ((rule == null) == (policy == null)) {
      throw new InvalidPolicyException("rule", "give either a rule name or an inline policy");
    }
    if (rule != null) {
      Rule.checkName(rule, "rule");
    }
    StateKey.checkSubject(key);
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
  }

  public static Check of(String rule, String key, long permits) {
    return new Check(rule, null, key, permits);
  }

  public static Check of(String rule, String key) {
    return new Check(rule, null, key, 1);
  }

  public static Check inline(Policy policy, String key, long permits) {
    return new Check(null, policy, key, permits);
  }

  /**
   * The checks of a batch, refused before anything is decided if the list or one of its elements is
   * null: the caller's bug, and the exception says which ({@code checks[2] is null}).
   */
  public static List<Check> requireAll(@Nullable List<Check> checks) {
    Objects.requireNonNull(checks, "checks must not be null");
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i) == null) {
        throw new NullPointerException("checks[" + i + "] is null");
      }
    }
    return checks;
  }
}
