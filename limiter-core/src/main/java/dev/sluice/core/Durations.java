package dev.sluice.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations users write: {@code 250ms}, {@code 1s}, {@code 1m}, {@code 1h}, {@code 1d},
 * and ISO-8601 ({@code PT1M}). Everything else is an error that quotes the input.
 */
public final class Durations {
  private static final Pattern SHORT_FORM = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  /** Twelve digits of days still fit a {@link Duration}; more than that is no one's window. */
  private static final int MAX_DIGITS = 12;

  private Durations() {}

  /**
   * The duration {@code text} denotes.
   *
   * @param field the field being parsed, named in the error
   * @throws InvalidPolicyException if {@code text} is neither short form nor ISO-8601
   */
  public static Duration parse(String field, String text) {
    String trimmed = text.trim();
    Matcher shortForm = SHORT_FORM.matcher(trimmed);
    if (shortForm.matches()) {
      if (shortForm.group(1).length() > MAX_DIGITS) {
        throw new InvalidPolicyException(
            field,
            "'"
                + text
                + "' is out of range; write at most "
                + MAX_DIGITS
                + " digits before the unit");
      }
      long amount = Long.parseLong(shortForm.group(1));
      return switch (shortForm.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    if (trimmed.startsWith("P") || trimmed.startsWith("p")) {
      try {
        return Duration.parse(trimmed);
      } catch (DateTimeParseException e) {
        // fall through to the one message below
      }
    }
    throw new InvalidPolicyException(
        field,
        "'"
            + text
            + "' is not a duration; write a whole number with ms, s, m, h or d"
            + " (e.g. 250ms, 1s, 1m) or ISO-8601 (e.g. PT1M)");
  }

  /** The short form of {@code duration} where it is whole in some unit, else ISO-8601. */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (!Duration.ofMillis(millis).equals(duration)) {
      return duration.toString();
    }
    if (millis == 0) {
      return "0s"; // not "0d": every unit divides zero
    }
    if (millis % 86_400_000L == 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1_000L == 0) {
      return millis / 1_000L + "s";
    }
    return millis + "ms";
  }
}
