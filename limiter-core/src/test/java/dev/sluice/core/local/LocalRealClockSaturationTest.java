package dev.sluice.core.local;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RealClockSaturationContract;
import java.util.List;

/** The local limiter on the system clock, saturated. */
class LocalRealClockSaturationTest extends RealClockSaturationContract {
  private final LocalRateLimiter limiter = LocalRateLimiter.builder().build();

  @Override
  protected List<RateLimiter> callers() {
    return List.of(limiter);
  }
}
