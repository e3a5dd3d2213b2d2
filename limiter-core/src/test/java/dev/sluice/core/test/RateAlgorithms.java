package dev.sluice.core.test;

import dev.sluice.core.Algorithm;
import java.util.Arrays;

/**
 * The algorithms that limit a rate, for the property tests that state a rate's invariants (a bound
 * per window, a penalty for denials, leases): every algorithm but {@code concurrency}, which limits
 * permits in flight and is proven by its own tests ({@code ConcurrencyPropertiesTest}).
 */
public final class RateAlgorithms {
  private static final Algorithm[] RATES =
      Arrays.stream(Algorithm.values()).filter(a -> !a.inFlight()).toArray(Algorithm[]::new);

  private RateAlgorithms() {}

  /** Every rate algorithm, in declaration order (a fresh array). */
  public static Algorithm[] values() {
    return RATES.clone();
  }
}
