package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A grid that stops answering: the first call pays the timeout, the breaker answers the next ones
 * at once by each rule's policy, one probe per interval finds the grid back.
 */
class FailurePolicyTest {
  private final ManualTimeSource time = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
  private final ScheduledExecutorService network = Executors.newScheduledThreadPool(1);
  private final ReferenceLimiter reference =
      new ReferenceLimiter(time)
          .withRule("api", Policy.of(100, Duration.ofMinutes(1)))
          .withRule("login", Policy.of(5, Duration.ofMinutes(1)));
  private final LaggingLimiter grid = new LaggingLimiter(reference, network, 0);
  private final AtomicLong monotonic = new AtomicLong(System.nanoTime());
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceClient client =
      SluiceClient.builder()
          .callTimeout(Duration.ofMillis(50))
          .probeInterval(Duration.ofSeconds(1))
          .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
          .meterRegistry(registry)
          .nanoClock(() -> Math.max(monotonic.get(), System.nanoTime()))
          .breakerClock(() -> Math.max(monotonic.get(), System.nanoTime()))
          .wrap(grid);

  @AfterEach
  void stop() {
    network.shutdownNow();
  }

  @Test
  void tryAcquire_gridDown_decidedByPolicyWithinTheTimeoutThenAtOnce() {
    assertThat(client.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    grid.down = true;

    long start = System.nanoTime();
    Decision first = client.tryAcquire("api", "k");
    long firstMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(first.allowed()).isTrue();
    assertThat(first.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    // The 50 ms call timeout, waited once: not less (the breaker did not answer early), and not
    // far more; 2 s is 40 times the timeout, for scheduling on a loaded machine.
    assertThat(firstMillis).isBetween(45L, 2_000L);

    // The breaker is open: 1,000 more calls cost no timeout at all.
    start = System.nanoTime();
    for (int i = 0; i < 1_000; i++) {
      assertThat(client.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
      Decision closed = client.tryAcquire("login", "k");
      assertThat(closed.allowed()).isFalse();
      assertThat(closed.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
      assertThat(closed.retryAfterNanos()).isPositive();
    }
    // 2,000 calls that each paid the 50 ms timeout would take 100 s; answered locally they take
    // milliseconds. 5 s tells the two apart with slack for a loaded machine.
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000L);
    assertThat(counter("fail_open")).isEqualTo(1_001);
    assertThat(counter("fail_closed")).isEqualTo(1_000);
    assertThat(client.tryAcquireAsync("login", "k", 1).toCompletableFuture().join().decidedBy())
        .isEqualTo(DecidedBy.FAIL_CLOSED);
  }

  @Test
  void tryAcquire_gridBack_decidedByTheGridAfterOneProbeInterval() {
    assertThat(breakerGauge()).isZero();
    grid.down = true;
    assertThat(client.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    assertThat(breakerGauge()).as("sluice_client_breaker_open while open").isEqualTo(1);
    grid.down = false;
    // Within the probe interval the breaker still answers locally.
    assertThat(client.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    monotonic.set(System.nanoTime() + Duration.ofSeconds(2).toNanos());
    Decision back = client.tryAcquire("api", "k");
    assertThat(back.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.gridUnavailable()).isFalse();
    assertThat(breakerGauge()).isZero();
    assertThat(client.tryAcquireAsync("api", "k", 1).toCompletableFuture().join().decidedBy())
        .isEqualTo(DecidedBy.LIMITER);
  }

  /**
   * One key's partition stuck (moving to a member that just joined) while the grid answers the
   * rest: that key's check is answered by its policy, and the breaker stays closed for the others,
   * because a call that left after it was answered. A 1 s call timeout, so that the other key's
   * answer surely comes before the stuck call gives up, however loaded the machine.
   */
  @Test
  void tryAcquire_oneKeyStuck_otherKeysStillDecidedByTheGrid() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    SluiceClient patient =
        SluiceClient.builder()
            .callTimeout(Duration.ofSeconds(1))
            .probeInterval(Duration.ofMinutes(1))
            .meterRegistry(meters)
            .wrap(grid);
    grid.hangs = stateKey -> stateKey.endsWith("stuck");
    CompletableFuture<Decision> stuck =
        patient.tryAcquireAsync("api", "stuck", 1).toCompletableFuture();
    assertThat(patient.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);

    assertThat(stuck.join().decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    assertThat(patient.gridUnavailable()).isFalse();
    assertThat(patient.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(
            meters
                .get("sluice.client.local.decisions")
                .tag("reason", "fail_open")
                .counter()
                .count())
        .isEqualTo(1);

    // Alone, with nothing later answered, the same failure is a grid that may be dead.
    assertThat(patient.tryAcquire("api", "stuck").decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    assertThat(patient.gridUnavailable()).isTrue();
    assertThat(patient.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
  }

  @Test
  void tryAcquireAsync_gridDown_completesWithinTheTimeout() {
    grid.down = true;
    long start = System.nanoTime();
    Decision d = client.tryAcquireAsync("login", "k", 1).toCompletableFuture().join();
    assertThat(d.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
    // As the synchronous call: the 50 ms timeout, with 40 times it as slack.
    assertThat((System.nanoTime() - start) / 1_000_000).isBetween(45L, 2_000L);
  }

  @Test
  void failureDecision_ruleLookedUpBefore_reportsTheRulesLimit() {
    // A REST node resolves the rule before each check, so the near cache knows it.
    assertThat(client.rules().find("api")).isPresent();
    assertThat(client.rules().find("login")).isPresent();
    grid.down = true;

    Decision open = client.tryAcquire("api", "k");
    assertThat(open.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    assertThat(open.limit()).isEqualTo(100);
    assertThat(open.remaining()).isEqualTo(100);
    Decision closed = client.tryAcquire("login", "k");
    assertThat(closed.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
    assertThat(closed.limit()).isEqualTo(5);
    assertThat(closed.remaining()).isZero();
    assertThat(closed.retryAfterNanos()).isPositive();
  }

  @Test
  void failureDecision_inlineGcra_reportsTheLimitTheGridWould() {
    Policy gcra =
        Policy.builder()
            .algorithm(dev.sluice.core.Algorithm.GCRA)
            .limit(30)
            .window(Duration.ofMinutes(1))
            .burst(15)
            .build();
    Decision fromGrid = client.tryAcquire(gcra, "k", 0);
    grid.down = true;
    Decision open = client.tryAcquire(gcra, "k", 1);
    assertThat(open.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
    assertThat(open.limit()).as("burst + 1, as the grid says").isEqualTo(fromGrid.limit());
  }

  @Test
  void rulesFind_gridDown_servesTheLastKnownRule_unknownRuleFails() {
    assertThat(client.rules().find("login")).isPresent();
    grid.down = true;
    // (An old entry is answered at once and refreshed in the background: RuleCacheTest.)
    assertThat(client.rules().find("login")).map(r -> r.policy().limit()).contains(5L);
    // The breaker opens on the first failed decision; lookups then do not ask the grid at all.
    assertThat(client.tryAcquire("login", "k").decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
    assertThat(client.rules().find("login")).isPresent();
    // A rule never seen has no local answer, and the exception says why.
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.rules().find("api"))
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessageContaining("rule 'api' has not been seen by this client");
  }

  private double counter(String reason) {
    return registry.get("sluice.client.local.decisions").tag("reason", reason).counter().count();
  }

  private double breakerGauge() {
    return registry.get("sluice.client.breaker.open").gauge().value();
  }
}
