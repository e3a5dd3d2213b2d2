package dev.sluice.core.algorithm;

import java.math.BigInteger;

/**
 * Integer arithmetic for nanosecond time and permit counts that neither overflows nor rounds the
 * wrong way. A 30-day window is 2.6e15 ns and a limit may be 1e9, so products of the two need 128
 * bits; the exact product is taken whenever 64 bits would not hold it.
 */
public final class NanoMath {
  private NanoMath() {}

  /** {@code floor(a * b / c)} for {@code a, b >= 0} and {@code c > 0}, exactly. */
  static long mulDivFloor(long a, long b, long c) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if (high == 0 && low >= 0) {
      return low / c;
    }
    return saturate(
        BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)));
  }

  /** {@code ceil(a * b / c)} for {@code a, b >= 0} and {@code c > 0}, exactly. */
  static long mulDivCeil(long a, long b, long c) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if (high == 0 && low >= 0) {
      return ceilDiv(low, c);
    }
    BigInteger[] quotientAndRemainder =
        BigInteger.valueOf(a)
            .multiply(BigInteger.valueOf(b))
            .divideAndRemainder(BigInteger.valueOf(c));
    BigInteger quotient = quotientAndRemainder[0];
    if (quotientAndRemainder[1].signum() != 0) {
      quotient = quotient.add(BigInteger.ONE);
    }
    return saturate(quotient);
  }

  /** {@code ceil(a / b)} for {@code a >= 0} and {@code b > 0}. */
  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** {@code a + b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where that overflows. */
  public static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow iff both operands have the same sign and the sum's sign differs.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  /** {@code a - b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where that overflows. */
  public static long saturatedSubtract(long a, long b) {
    long difference = a - b;
    // Overflow iff the operands have different signs and the result's sign differs from a's.
    if (((a ^ b) & (a ^ difference)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return difference;
  }

  /** {@code a * b} for {@code a, b >= 0}, or {@link Long#MAX_VALUE} where that overflows. */
  static long saturatedMultiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    return high == 0 && low >= 0 ? low : Long.MAX_VALUE;
  }

  /** The start of the epoch-aligned window of length {@code windowNanos} that holds {@code now}. */
  static long windowStart(long nowNanos, long windowNanos) {
    return nowNanos - Math.floorMod(nowNanos, windowNanos);
  }

  private static long saturate(BigInteger value) {
    return value.bitLength() < Long.SIZE ? value.longValue() : Long.MAX_VALUE;
  }
}
