package dev.sluice.core.algorithm;

import dev.sluice.core.InvalidPolicyException;

/** The one check every algorithm makes on the permits it is asked for. */
final class Permits {
  private Permits() {}

  /**
   * @throws InvalidPolicyException naming the field {@code cost} if {@code permits} is negative or
   *     above {@code capacity}: such a request could never be admitted, so it is an error rather
   *     than a denial forever
   */
  static void check(long permits, long capacity) {
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
    if (permits > capacity) {
      throw new InvalidPolicyException(
          "cost", permits + " exceeds the capacity " + capacity + ", so it could never be allowed");
    }
  }
}
