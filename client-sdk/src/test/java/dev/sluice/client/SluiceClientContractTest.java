package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite through a {@link SluiceClient} over a real Hazelcast client, against two real
 * members on loopback sharing one manual clock. The client's denied cache, coalescer and breaker
 * are all on; its local clock follows the members' so that moving time moves it too.
 */
class SluiceClientContractTest extends RateLimiterContract {
  private static GridMembers grid;
  private static SluiceClient client;
  private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** Every decision in the suite came from the grid or the denied cache, never from an outage. */
  @AfterEach
  void noOutageAnswers() {
    assertThat(
            registry
                .find("sluice.client.local.decisions")
                .tag("reason", "fail_open")
                .counter()
                .count())
        .as("fail-open answers")
        .isZero();
  }

  @BeforeAll
  static void startGrid() {
    grid = GridMembers.start(2);
    // A generous timeout: the suite checks semantics, not outages, on a busy 2-core machine. One
    // call past it opens the breaker and fails every test after it (seen once at load 16 with a
    // first call of 5 s), so it is far above any wait the grid itself causes.
    client = grid.client().callTimeout(Duration.ofSeconds(30)).meterRegistry(registry).build();
  }

  @AfterAll
  static void stopGrid() {
    if (client != null) {
      client.close();
    }
    if (grid != null) {
      grid.close();
    }
  }

  @Override
  protected RateLimiter limiter() {
    return client;
  }

  @Override
  protected ManualTimeSource clock() {
    return grid.clock;
  }
}
