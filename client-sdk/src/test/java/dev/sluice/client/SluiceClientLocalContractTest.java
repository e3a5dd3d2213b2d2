package dev.sluice.client;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;

/** The contract suite through the client's decorators in front of a local limiter (wrap mode). */
class SluiceClientLocalContractTest extends RateLimiterContract {
  private ManualTimeSource clock;
  private SluiceClient client;

  @BeforeEach
  void setUp() {
    clock = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
    client =
        SluiceClient.builder()
            .nanoClock(clock::nowNanos)
            .wrap(LocalRateLimiter.builder().timeSource(clock).build());
  }

  @Override
  protected RateLimiter limiter() {
    return client;
  }

  @Override
  protected ManualTimeSource clock() {
    return clock;
  }
}
