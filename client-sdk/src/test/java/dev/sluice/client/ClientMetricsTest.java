package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.metrics.DecisionMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * An SDK client given a registry counts every decision the application gets, as a REST node and an
 * embedded member do: the grid's, and those it made itself (the denied-until cache's), which are
 * counted but not timed.
 */
class ClientMetricsTest {
  private final ManualTimeSource time = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceClient client =
      SluiceClient.builder()
          .nanoClock(time::nowNanos)
          .meterRegistry(registry)
          .wrap(new ReferenceLimiter(time).withRule("login", Policy.of(2, Duration.ofMinutes(1))));

  @Test
  void decisions_ofTheGridAndOfTheDeniedCache_areCountedOnce() {
    client.tryAcquire("login", "ip");
    client.tryAcquire("login", "ip");
    assertThat(client.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);

    assertThat(decisions("allowed")).isEqualTo(2);
    assertThat(decisions("denied")).isEqualTo(2);
    // The timer times the decisions that went to the limiter; a local answer takes nanoseconds.
    assertThat(registry.get(DecisionMetrics.DECISION_TIMER).timer().count()).isEqualTo(3);
  }

  private double decisions(String outcome) {
    return registry
        .get(DecisionMetrics.DECISIONS)
        .tag("rule", "login")
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
