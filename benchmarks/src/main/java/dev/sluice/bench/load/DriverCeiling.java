package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import java.util.Optional;

/**
 * The load driver's own ceiling: a contender that admits every call at once, in the caller's
 * thread, with no state. Its admissions are tallied against the scenario's rule like everyone
 * else's, so its row costs the driver exactly what any other contender's does (key choice, two
 * clock reads, the latency histogram, the exactness tally) and nothing more. A contender that
 * answers locally can approach this row and never pass it; it shows how much of a ratio between two
 * local answers the driver leaves room for (S3).
 */
final class DriverCeiling implements Contender {
  static final String NAME = "Load driver alone (answers at once)";

  private final Policy enforced;

  DriverCeiling(BenchRule rule) {
    this.enforced = rule.policy();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome decide(String key) {
    return Outcome.ALLOWED;
  }

  @Override
  public Optional<Policy> enforced() {
    return Optional.of(enforced);
  }
}
