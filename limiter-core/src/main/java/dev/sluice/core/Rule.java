package dev.sluice.core;

/**
 * A named policy, as rules files and {@code PUT /v1/rules/{name}} define it.
 *
 * @param name matches {@code [A-Za-z0-9_.-]{1,64}}
 */
public record Rule(String name, Policy policy) {
  private static final int MAX_NAME_LENGTH = 64;

  public Rule {
    checkName(name);
    if (policy == null) {
      throw new InvalidPolicyException("policy", "is required");
    }
  }

  /**
   * Checks that a rule was given, for stores and APIs that take one.
   *
   * @throws InvalidPolicyException naming the field {@code rule} if it is null
   */
  public static Rule require(Rule rule) {
    if (rule == null) {
      throw new InvalidPolicyException("rule", "is required, was null");
    }
    return rule;
  }

  /**
   * Checks a rule name.
   *
   * @throws InvalidPolicyException naming the field {@code name}
   */
  public static String checkName(String name) {
    return checkName(name, "name");
  }

  /**
   * Checks a rule name given as {@code field}: {@code rule} where a call names the rule it limits
   * by (a check, a peek, a reset), so that the error names the caller's argument.
   *
   * @throws InvalidPolicyException naming {@code field}
   */
  public static String checkName(String name, String field) {
    if (name == null) {
      throw new InvalidPolicyException(field, "is required, was null");
    }
    if (!isValidName(name)) {
      throw new InvalidPolicyException(
          field,
          "rule names are 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was '"
              + name
              + "'");
    }
    return name;
  }

  /**
   * {@code [A-Za-z0-9_.-]{1,64}}, checked by hand: every REST check and every named decision asks,
   * and a regex matcher per call showed in the REST path's profile.
   */
  private static boolean isValidName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean valid =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '.'
              || c == '-';
      if (!valid) {
        return false;
      }
    }
    return true;
  }
}
