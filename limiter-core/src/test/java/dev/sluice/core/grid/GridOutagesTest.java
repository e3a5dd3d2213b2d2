package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.test.OfflineGrid;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A grid runtime whose grid cannot answer fails with the core's {@link
 * LimiterUnavailableException}, never with Hazelcast's own exceptions, on every path a front end
 * takes: a check, a batch, a rule lookup, the rules list. The grid here is a real Hazelcast client
 * pointed at a loopback port where no member listens ({@link OfflineGrid}).
 */
class GridOutagesTest {
  private static HazelcastInstance offlineClient;
  private static GridRateLimiter limiter;

  @BeforeAll
  static void startOffline() {
    offlineClient = OfflineGrid.client();
    limiter = new GridRateLimiter(offlineClient);
  }

  @AfterAll
  static void stop() {
    if (limiter != null) {
      limiter.close();
    }
    if (offlineClient != null) {
      offlineClient.shutdown();
    }
  }

  @Test
  void tryAcquire_clientOffline_throwsLimiterUnavailableSayingWhy() {
    assertThatThrownBy(() -> limiter.tryAcquire(Check.of("login", "203.0.113.7")))
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessage("this node is not connected to the grid")
        .hasCauseInstanceOf(HazelcastClientOfflineException.class);
  }

  @Test
  void tryAcquireAllAsync_clientOffline_failsWithLimiterUnavailable() {
    assertThat(
            limiter
                .tryAcquireAllAsync(List.of(Check.of("login", "a"), Check.of("login", "b")))
                .toCompletableFuture())
        .failsWithin(5, TimeUnit.SECONDS)
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(LimiterUnavailableException.class);
  }

  @Test
  void rules_clientOffline_lookupNamesTheRule_listSaysUnavailable() {
    assertThatThrownBy(() -> limiter.rules().find("login"))
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessageContaining("rule 'login' has not been seen by this client");
    assertThatThrownBy(() -> limiter.rules().all())
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessage("this node is not connected to the grid");
  }
}
