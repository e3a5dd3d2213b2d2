package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.GridRateLimiter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code build()} while no member answers (a deploy during an outage): the client is built anyway,
 * within its connect timeout; it answers by the failure policy from the first call and says so
 * (state, gauge, local-decision counter); when a member comes up it connects in the background and
 * the grid decides again, with no call from the application. Only configuration errors fail the
 * build.
 *
 * <pre>
 *   build()        no member: returns after connectTimeout, state CONNECTING
 *   first calls    FAIL_OPEN (default) / FAIL_CLOSED (per rule), within the call timeout
 *   member starts  state CONNECTED by itself; decisions by the LIMITER
 * </pre>
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("realtime") // judged on the wall clock while the machine is loaded
class BuildWithoutGridTest {
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(100);

  @Test
  void build_noMemberYet_answersByPolicyFromTheFirstCall_thenConnectsInTheBackground()
      throws Exception {
    try (GridMembers grid = new GridMembers()) {
      // The first Hazelcast client of a JVM loads its classes, seconds on a loaded CI machine:
      // build one that does not wait, so that the timed build below measures the wait alone.
      grid.client()
          .addresses("127.0.0.1:" + grid.basePort)
          .connectTimeout(Duration.ZERO)
          .build()
          .close();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      long startNanos = System.nanoTime();
      try (SluiceClient client =
          grid.client()
              .addresses("127.0.0.1:" + grid.basePort)
              .connectTimeout(Duration.ofMillis(300))
              .callTimeout(CALL_TIMEOUT)
              .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
              .meterRegistry(registry)
              .build()) {
        assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
            .as("build() waits for the grid at most its connect timeout (and some start-up)")
            .isLessThan(Duration.ofSeconds(5));
        assertThat(client.gridState()).isEqualTo(GridState.CONNECTING);
        assertThat(gauge(registry, "connecting")).isEqualTo(1.0);

        // Rules the client never saw: answered by their failure policy, and said so.
        Decision api = timed(() -> client.tryAcquire("api", "k"));
        Decision login = timed(() -> client.tryAcquire("login", "k"));
        List<Decision> batch =
            timed(
                () ->
                    client.tryAcquireAll(List.of(Check.of("api", "b1"), Check.of("login", "b2"))));
        assertThat(api.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
        assertThat(api.allowed()).isTrue();
        assertThat(login.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
        assertThat(login.allowed()).isFalse();
        assertThat(batch)
            .extracting(Decision::decidedBy)
            .containsExactly(DecidedBy.FAIL_OPEN, DecidedBy.FAIL_CLOSED);
        assertThat(counter(registry, "fail_open")).isGreaterThanOrEqualTo(2.0);
        assertThat(counter(registry, "fail_closed")).isGreaterThanOrEqualTo(2.0);

        // The grid comes up where the client looks for it: nobody calls connect().
        HazelcastInstance member = grid.addMemberAt(grid.basePort);
        new GridRateLimiter(member)
            .rules()
            .put(new Rule("api", Policy.of(5, Duration.ofMinutes(1))));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (client.gridState() != GridState.CONNECTED && System.nanoTime() < deadline) {
          Thread.sleep(50); // waiting for the background connection, not for limiter time
        }
        assertThat(client.gridState()).isEqualTo(GridState.CONNECTED);
        assertThat(gauge(registry, "connected")).isEqualTo(1.0);

        Decision decided = awaitGridDecision(client, deadline);
        assertThat(decided.decidedBy()).isNotIn(DecidedBy.FAIL_OPEN, DecidedBy.FAIL_CLOSED);
        assertThat(decided.limit()).isEqualTo(5);
      }
    }
  }

  @Test
  void builder_configurationError_failsAtOnce_andLeavesNoClientRunning() {
    int clientsBefore = HazelcastClient.getAllHazelcastClients().size();

    assertThatThrownBy(() -> SluiceClient.builder().callTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("callTimeout");

    assertThat(HazelcastClient.getAllHazelcastClients()).hasSize(clientsBefore);
  }

  /** The first decision the grid makes, once the breaker lets a call through again. */
  private static Decision awaitGridDecision(SluiceClient client, long deadlineNanos)
      throws InterruptedException {
    Decision decision = client.tryAcquire("api", "after");
    while (decision.decidedBy() == DecidedBy.FAIL_OPEN && System.nanoTime() < deadlineNanos) {
      Thread.sleep(50); // the breaker's probe interval, in wall time
      decision = client.tryAcquire("api", "after");
    }
    return decision;
  }

  /** Runs a call and checks it answered within the call timeout and a margin for a slow machine. */
  private static <T> T timed(java.util.function.Supplier<T> call) {
    long start = System.nanoTime();
    T answer = call.get();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(CALL_TIMEOUT.plusMillis(500));
    return answer;
  }

  private static double gauge(SimpleMeterRegistry registry, String state) {
    return registry.get(GridConnection.STATE_GAUGE).tag("state", state).gauge().value();
  }

  private static double counter(SimpleMeterRegistry registry, String reason) {
    return registry.get("sluice.client.local.decisions").tag("reason", reason).counter().count();
  }
}
