package dev.sluice.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.ToIntFunction;

/**
 * How Sluice's enums are named in rules files and JSON (lower case, {@code shadow_ban}) and found
 * again by that name or by their code in binary formats: one lookup for every enum, with one error
 * that lists what is accepted.
 */
public final class WireEnums {
  private WireEnums() {}

  /** {@code value}'s name as rules files and JSON write it: its constant's, in lower case. */
  public static String wireName(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The value of {@code values} whose {@link #wireName} is {@code name}.
   *
   * @throws InvalidPolicyException naming {@code field} and the accepted names, e.g. {@code must be
   *     'auto' or 'off', was 'on'}
   */
  public static <E extends Enum<E>> E fromWireName(E[] values, String name, String field) {
    for (E value : values) {
      if (wireName(value).equals(name)) {
        return value;
      }
    }
    String[] names = Arrays.stream(values).map(v -> "'" + wireName(v) + "'").toArray(String[]::new);
    String choices =
        String.join(", ", Arrays.copyOf(names, names.length - 1))
            + " or "
            + names[names.length - 1];
    throw new InvalidPolicyException(field, "must be " + choices + ", was '" + name + "'");
  }

  /**
   * The value of {@code values} whose code in binary formats is {@code code}.
   *
   * @throws IllegalArgumentException naming {@code what} for a code none has
   */
  public static <E extends Enum<E>> E ofCode(
      E[] values, ToIntFunction<E> codeOf, int code, String what) {
    for (E value : values) {
      if (codeOf.applyAsInt(value) == code) {
        return value;
      }
    }
    throw new IllegalArgumentException("unknown " + what + " code " + code);
  }
}
