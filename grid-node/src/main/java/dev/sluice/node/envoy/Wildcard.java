package dev.sluice.node.envoy;

/**
 * A descriptor value with {@code *} in it, as the peer matches them: each {@code *} stands for any
 * run of characters, the empty one included, and the pattern must cover the whole value. {@code
 * foo*} matches {@code foo} and {@code foobar}; {@code bar*b} matches {@code barb} and {@code
 * bar123b} but not {@code bara}; {@code foo*bar*baz} needs the three parts in that order.
 *
 * <p>The parts are split once, at load; a match scans the value once from each end and then left to
 * right for the middle parts, without allocating.
 */
final class Wildcard {
  private final String pattern;
  private final String[] parts;
  private final int fixedLength;

  Wildcard(String pattern) {
    this.pattern = pattern;
    this.parts = pattern.split("\\*", -1);
    int fixed = 0;
    for (String part : parts) {
      fixed += part.length();
    }
    this.fixedLength = fixed;
  }

  static boolean isPattern(String value) {
    return value.indexOf('*') >= 0;
  }

  boolean matches(String value) {
    String first = parts[0];
    String last = parts[parts.length - 1];
    if (value.length() < fixedLength || !value.startsWith(first) || !value.endsWith(last)) {
      return false;
    }
    int from = first.length();
    int to = value.length() - last.length();
    for (int i = 1; i < parts.length - 1; i++) {
      int at = value.indexOf(parts[i], from);
      if (at < 0 || at + parts[i].length() > to) {
        return false;
      }
      from = at + parts[i].length();
    }
    return true;
  }

  @Override
  public String toString() {
    return pattern;
  }
}
