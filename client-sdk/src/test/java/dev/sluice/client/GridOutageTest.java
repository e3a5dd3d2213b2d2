package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.GridRuleStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The grid goes away and comes back, for real: a member on loopback is terminated, later another
 * starts on its port. The client is never restarted.
 */
@Tag("realtime") // judged on the wall clock while the machine is loaded
class GridOutageTest {
  private static final long TIMEOUT_MILLIS = 50;
  private GridMembers grid;
  private SluiceClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (grid != null) {
      grid.close();
    }
  }

  @Test
  void tryAcquire_gridDownThenBack_decidedByPolicyThenByTheGridAgain() throws Exception {
    grid = GridMembers.start(1);
    // The real monotonic clock here: the breaker's probe interval must pass in real time.
    client =
        SluiceClient.builder()
            .clusterName(grid.clusterName)
            .addresses(grid.addresses())
            .callTimeout(Duration.ofMillis(TIMEOUT_MILLIS))
            .probeInterval(Duration.ofMillis(200))
            .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    putRules(grid.members.get(0));
    assertThat(client.tryAcquire("api", "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.tryAcquire("login", "k").decidedBy()).isEqualTo(DecidedBy.LIMITER);

    int port = GridMembers.portOf(grid.members.get(0));
    grid.members.get(0).getLifecycleService().terminate();

    // Down: every call is answered by its rule's policy, none waits longer than the timeout
    // (plus scheduling slack on a shared 2-core machine), and only probes wait at all.
    long start = System.nanoTime();
    long worstMillis = 0;
    int slowCalls = 0;
    int calls = 0;
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(1_000)) {
      long before = System.nanoTime();
      Decision api = client.tryAcquire("api", "k");
      Decision login = client.tryAcquire("login", "k");
      long millis = (System.nanoTime() - before) / 1_000_000;
      worstMillis = Math.max(worstMillis, millis);
      if (millis >= TIMEOUT_MILLIS) {
        slowCalls++;
      }
      calls += 2;
      assertThat(api.allowed()).isTrue();
      assertThat(api.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
      assertThat(login.allowed()).isFalse();
      assertThat(login.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
      assertThat(login.retryAfterNanos()).isPositive();
    }
    System.out.printf(
        "grid down: %d calls in 1 s, worst pair %d ms, %d slow pairs%n",
        calls, worstMillis, slowCalls);
    // Scheduling slack: this machine's two cores are shared by several test runs.
    assertThat(worstMillis).isLessThan(2 * TIMEOUT_MILLIS + 1_000);
    // One probe per 200 ms interval at most pays the timeout: about five in a second.
    assertThat(slowCalls).isLessThanOrEqualTo(10);
    assertThat(calls).isGreaterThan(200);
    assertThat(client.gridUnavailable()).isTrue();

    // Back: a member starts where the old one was; the operator loads the rules again.
    HazelcastInstance back = grid.addMemberAt(port);
    putRules(back);
    long backAt = System.nanoTime();
    Decision api = client.tryAcquire("api", "k");
    while (api.decidedBy() != DecidedBy.LIMITER
        && System.nanoTime() - backAt < TimeUnit.SECONDS.toNanos(15)) {
      Thread.sleep(20); // waiting for the client to reconnect, not for limiter time
      api = client.tryAcquire("api", "k");
    }
    System.out.printf(
        "grid back: decided by the grid again after %d ms%n",
        (System.nanoTime() - backAt) / 1_000_000);
    assertThat(api.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    // A call that misses its 50 ms timeout on this shared machine (the new member's first
    // operations are slow) is answered by policy again: the grid must answer within a bound.
    Decision login = client.tryAcquire("login", "k");
    while (login.decidedBy() != DecidedBy.LIMITER
        && System.nanoTime() - backAt < TimeUnit.SECONDS.toNanos(15)) {
      Thread.sleep(20);
      login = client.tryAcquire("login", "k");
    }
    assertThat(login.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(login.allowed()).isTrue();
    assertThat(client.gridUnavailable()).isFalse();
  }

  /**
   * A lease's permits were admitted by the key's owner when it granted them: the client answers
   * from a live lease even while its breaker is open, and only keys without one get the failure
   * policy's answer. The members' clock and the client's lease clock are the same frozen manual
   * clock, so the lease outlives the outage.
   */
  @Test
  void liveLease_answersWhileTheBreakerIsOpen() {
    grid = GridMembers.start(1);
    client =
        grid.client()
            .callTimeout(Duration.ofMillis(TIMEOUT_MILLIS))
            .probeInterval(Duration.ofHours(1))
            .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
            .build();
    putRules(grid.members.get(0));
    Decision hot = client.tryAcquire("api", "hot");
    for (int i = 0; i < 20 && hot.decidedBy() != DecidedBy.LEASE; i++) {
      hot = client.tryAcquire("api", "hot");
    }
    assertThat(hot.decidedBy()).as("the hot key is leased").isEqualTo(DecidedBy.LEASE);

    grid.members.get(0).getLifecycleService().terminate();
    Decision cold = client.tryAcquire("login", "cold");
    assertThat(cold.decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
    assertThat(client.gridUnavailable()).as("the breaker is open").isTrue();

    Decision leased = client.tryAcquire("api", "hot");
    assertThat(leased.decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(leased.allowed()).isTrue();
    Decision leasedAsync =
        client.tryAcquireAsync(Check.of("api", "hot")).toCompletableFuture().join();
    assertThat(leasedAsync.decidedBy()).as("asynchronous too").isEqualTo(DecidedBy.LEASE);
    assertThat(client.tryAcquire("login", "cold").decidedBy()).isEqualTo(DecidedBy.FAIL_CLOSED);
  }

  private static void putRules(HazelcastInstance member) {
    GridRuleStore rules = new GridRuleStore(member);
    rules.put(new Rule("api", Policy.of(1_000_000, Duration.ofMinutes(1))));
    rules.put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
  }
}
