package dev.sluice.core;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The key a limiter's state is stored under: {@code <rule>|<subject>} (docs/grid.md), {@code
 * ~<policy identity>|<subject>} for an inline policy, so that each inline policy on a subject has a
 * state of its own ({@link Policy#identity()}), and {@code @<state name>|<subject>} for an inline
 * policy under a state name ({@link PolicyRef#inlineUnder}), one state whatever its parameters. No
 * rule can take a {@code ~} or {@code @} name: rule names are {@code [A-Za-z0-9_.-]}, and neither a
 * policy identity (base 36) nor a state name holds a {@code |}.
 */
public final class StateKey {
  /** What every inline state key starts with, but those under a state name. */
  public static final char INLINE_PREFIX = '~';

  /** What the state key of an inline policy under a state name starts with. */
  public static final char NAMED_INLINE_PREFIX = '@';

  /** The longest state name. */
  public static final int MAX_STATE_NAME_LENGTH = 64;

  private static final Pattern STATE_NAME =
      Pattern.compile("[A-Za-z0-9_.:/-]{1," + MAX_STATE_NAME_LENGTH + "}");

  public static final int MAX_SUBJECT_BYTES = 512;

  private StateKey() {}

  public static String of(String rule, String subject) {
    return rule + '|' + subject;
  }

  /** The key of {@code subject}'s state under the inline {@code policy}. */
  public static String inline(Policy policy, String subject) {
    return INLINE_PREFIX + policy.identity() + '|' + subject;
  }

  /** The key of {@code subject}'s state under an inline policy kept under {@code stateName}. */
  public static String underName(String stateName, String subject) {
    return NAMED_INLINE_PREFIX + stateName + '|' + subject;
  }

  /** Whether {@code stateKey} is an inline policy's, under a state name or not. */
  public static boolean isInline(String stateKey) {
    return !stateKey.isEmpty()
        && (stateKey.charAt(0) == INLINE_PREFIX || stateKey.charAt(0) == NAMED_INLINE_PREFIX);
  }

  /**
   * Whether {@code stateKey} is an inline policy's under a state name: its state keeps the policy
   * that wrote it ({@link PolicyRef#storesPolicyWithState()}).
   */
  public static boolean isUnderName(String stateKey) {
    return !stateKey.isEmpty() && stateKey.charAt(0) == NAMED_INLINE_PREFIX;
  }

  /**
   * Checks a state name ({@link PolicyRef#inlineUnder}).
   *
   * @throws InvalidPolicyException naming the field {@code stateName}
   */
  public static String checkStateName(String stateName) {
    if (stateName == null || !STATE_NAME.matcher(stateName).matches()) {
      throw new InvalidPolicyException(
          "stateName",
          "must be 1 to "
              + MAX_STATE_NAME_LENGTH
              + " characters of A-Z, a-z, 0-9, '_', '.', ':', '/' and '-', was "
              + (stateName == null ? "null" : "'" + stateName + "'"));
    }
    return stateName;
  }

  /**
   * The rule part of a state key: the rule's name; for an inline key, its prefix and the policy's
   * identity or the state name.
   */
  public static String ruleOf(String stateKey) {
    return stateKey.substring(0, stateKey.indexOf('|'));
  }

  /** The subject part of a state key: what follows its rule part ({@link #ruleOf}). */
  public static String subjectOf(String stateKey) {
    return stateKey.substring(stateKey.indexOf('|') + 1);
  }

  /**
   * Checks a subject: non-empty, well-formed Unicode, and at most {@value #MAX_SUBJECT_BYTES} bytes
   * of UTF-8.
   *
   * <p>Well-formed means no unpaired UTF-16 surrogate: such a char has no UTF-8 form, so encoders
   * replace it with {@code ?} (distinct keys would then share a counter) and the grid would look up
   * another key than the one it was asked for. JSON can carry one ({@code "\\ud800"}), so the REST
   * API meets it too.
   *
   * @throws InvalidPolicyException naming the field {@code key}
   */
  public static String checkSubject(String subject) {
    if (subject == null || subject.isEmpty()) {
      throw new InvalidPolicyException("key", "is required and must not be empty");
    }
    // One pass counts the UTF-8 length and finds unpaired surrogates, without encoding.
    int length = subject.length();
    long utf8Bytes = 0;
    for (int i = 0; i < length; i++) {
      char c = subject.charAt(i);
      if (c < 0x80) {
        utf8Bytes += 1;
      } else if (c < 0x800) {
        utf8Bytes += 2;
      } else if (!Character.isSurrogate(c)) {
        utf8Bytes += 3;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < length
          && Character.isLowSurrogate(subject.charAt(i + 1))) {
        utf8Bytes += 4;
        i++;
      } else {
        throw new InvalidPolicyException(
            "key",
            String.format(
                Locale.ROOT,
                "must be valid Unicode text, but has an unpaired surrogate \\u%04x at index %d",
                (int) c,
                i));
      }
    }
    if (utf8Bytes > MAX_SUBJECT_BYTES) {
      throw new InvalidPolicyException(
          "key", "must be at most " + MAX_SUBJECT_BYTES + " bytes of UTF-8");
    }
    return subject;
  }
}
