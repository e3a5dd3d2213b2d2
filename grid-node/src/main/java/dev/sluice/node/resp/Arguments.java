package dev.sluice.node.resp;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Numbers as the peers read them, so that what they refuse is refused here with their texts.
 *
 * <ul>
 *   <li>{@link #redisInteger}: Redis's {@code string2ll}: an optional {@code -}, digits, no leading
 *       zero, no {@code +}, no spaces, within 64 bits.
 *   <li>{@link #cellInteger}: redis-cell's (Rust's {@code i64} parse): an optional {@code +} or
 *       {@code -}, digits (leading zeros allowed), within 64 bits.
 *   <li>{@link #redisDouble}: Redis's {@code getDoubleFromObject}: a decimal float or {@code inf},
 *       no spaces, no {@code nan}.
 * </ul>
 */
final class Arguments {
  static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
  static final String NOT_A_FLOAT = "ERR value is not a valid float";

  private Arguments() {}

  /**
   * @throws CommandError with {@code error} if {@code bytes} is not an integer Redis accepts
   */
  static long redisInteger(byte[] bytes, String error) {
    int n = bytes.length;
    if (n == 0 || n > 20) {
      throw new CommandError(error);
    }
    if (n == 1 && bytes[0] == '0') {
      return 0;
    }
    boolean negative = bytes[0] == '-';
    int i = negative ? 1 : 0;
    if (i >= n || bytes[i] < '1' || bytes[i] > '9') {
      throw new CommandError(error);
    }
    return digits(bytes, i, negative, error);
  }

  /**
   * @throws CommandError {@link #NOT_AN_INTEGER} if {@code bytes} is not an integer redis-cell
   *     accepts
   */
  static long cellInteger(byte[] bytes) {
    int n = bytes.length;
    int i = n > 0 && (bytes[0] == '-' || bytes[0] == '+') ? 1 : 0;
    if (i >= n) {
      throw new CommandError(NOT_AN_INTEGER);
    }
    return digits(bytes, i, bytes[0] == '-', NOT_AN_INTEGER);
  }

  /** The digits from {@code from} on, negated if asked, refusing anything past 64 bits. */
  private static long digits(byte[] bytes, int from, boolean negative, String error) {
    long value = 0; // accumulated negative: -2^63 fits, 2^63 does not
    for (int i = from; i < bytes.length; i++) {
      int digit = bytes[i] - '0';
      if (digit < 0 || digit > 9 || value < (Long.MIN_VALUE + digit) / 10) {
        throw new CommandError(error);
      }
      value = value * 10 - digit;
    }
    if (!negative && value == Long.MIN_VALUE) {
      throw new CommandError(error);
    }
    return negative ? value : -value;
  }

  /**
   * @throws CommandError {@link #NOT_A_FLOAT} if {@code bytes} is not a float Redis accepts
   */
  static double redisDouble(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    String unsigned = text.startsWith("+") || text.startsWith("-") ? text.substring(1) : text;
    if (unsigned.equalsIgnoreCase("inf") || unsigned.equalsIgnoreCase("infinity")) {
      return text.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    if (!DECIMAL.matcher(text).matches()) {
      throw new CommandError(NOT_A_FLOAT);
    }
    double value = Double.parseDouble(text);
    if (Double.isInfinite(value)) {
      throw new CommandError(NOT_A_FLOAT); // out of range, as strtod's ERANGE
    }
    return value;
  }

  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
}
