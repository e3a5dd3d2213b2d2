package dev.sluice.bench.load.exactness;

import java.util.Random;
import java.util.function.LongConsumer;

/**
 * Seeded random loops, the project's convention: the base seed is fresh each run unless {@code
 * -Dsluice.seed=<n>} fixes it, and a failing case says how to replay it.
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
