package dev.sluice.core;

import java.nio.charset.StandardCharsets;

/**
 * The key a limiter's state is stored under: {@code <rule>|<subject>} (DESIGN §3). Inline policies
 * share the namespace {@value #INLINE_NAMESPACE}, which no rule can take because rule names cannot
 * contain {@code ~}.
 */
public final class StateKey {
  public static final String INLINE_NAMESPACE = "~inline";
  public static final int MAX_SUBJECT_BYTES = 512;

  private StateKey() {}

  public static String of(String rule, String subject) {
    return rule + '|' + subject;
  }

  public static String inline(String subject) {
    return INLINE_NAMESPACE + '|' + subject;
  }

  /** The rule part of a state key ({@value #INLINE_NAMESPACE} for inline policies). */
  public static String ruleOf(String stateKey) {
    return stateKey.substring(0, stateKey.indexOf('|'));
  }

  /**
   * Checks a subject: non-empty and at most {@value #MAX_SUBJECT_BYTES} bytes of UTF-8.
   *
   * @throws InvalidPolicyException naming the field {@code key}
   */
  public static String checkSubject(String subject) {
    if (subject == null || subject.isEmpty()) {
      throw new InvalidPolicyException("key", "is required and must not be empty");
    }
    // A char is at most 3 UTF-8 bytes, so short strings need no encoding to be within bounds.
    if (subject.length() * 3 > MAX_SUBJECT_BYTES
        && subject.getBytes(StandardCharsets.UTF_8).length > MAX_SUBJECT_BYTES) {
      throw new InvalidPolicyException(
          "key", "must be at most " + MAX_SUBJECT_BYTES + " bytes of UTF-8");
    }
    return subject;
  }
}
