package dev.sluice.core.algorithm;

import java.util.Random;
import java.util.function.LongConsumer;

/**
 * Seeded random loops that say how to replay a failure. The base seed is fresh each run unless
 * {@code -Dsluice.seed=<n>} fixes it; a failing case reports its base seed and case seed.
 */
final class Seeded {
  private Seeded() {}

  static void run(String property, int cases, LongConsumer body) {
    String fixed = System.getProperty("sluice.seed");
    long baseSeed = fixed != null ? Long.parseLong(fixed) : new Random().nextLong();
    Random seeds = new Random(baseSeed);
    for (int i = 0; i < cases; i++) {
      long seed = seeds.nextLong();
      try {
        body.accept(seed);
      } catch (AssertionError | RuntimeException e) {
        String message =
            property
                + " failed for case seed "
                + seed
                + " (case "
                + i
                + "; replay all with -Dsluice.seed="
                + baseSeed
                + "): "
                + e.getMessage();
        System.err.println(message);
        throw new AssertionError(message, e);
      }
    }
  }
}
