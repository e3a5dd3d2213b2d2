package dev.sluice.core.local;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RealClockSaturationContract;
import java.util.List;
import org.junit.jupiter.api.Tag;

/** The local limiter on the system clock, saturated. */
@Tag("realtime") // saturates keys on the real clock, judged by each algorithm's bound
class LocalRealClockSaturationTest extends RealClockSaturationContract {
  private final LocalRateLimiter limiter = LocalRateLimiter.builder().build();

  @Override
  protected List<RateLimiter> callers() {
    return List.of(limiter);
  }
}
