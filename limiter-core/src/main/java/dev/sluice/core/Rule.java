package dev.sluice.core;

import java.util.regex.Pattern;

/**
 * A named policy, as rules files and {@code PUT /v1/rules/{name}} define it.
 *
 * @param name matches {@code [A-Za-z0-9_.-]{1,64}}
 */
public record Rule(String name, Policy policy) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  public Rule {
    checkName(name);
    if (policy == null) {
      throw new InvalidPolicyException("policy", "is required");
    }
  }

  /**
   * Checks a rule name.
   *
   * @throws InvalidPolicyException naming the field {@code name}
   */
  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidPolicyException(
          "name",
          "rule names are 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was '"
              + name
              + "'");
    }
    return name;
  }
}
