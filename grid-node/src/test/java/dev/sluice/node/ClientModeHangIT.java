package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A grid that hangs instead of going away: the member is a {@code sluice-node.jar} process, stopped
 * with SIGSTOP. Its connections stay open, so the client-mode node (in this JVM) is not told
 * anything: every call to the grid would wait. This is the case the call timeout is for (a member
 * shut down or killed closes its connections, and the node learns of it at once, see {@link
 * ClientModeOutageTest}).
 *
 * <pre>
 *   member running   checks decided by the limiter
 *   SIGSTOP          each check answers within callTimeout + 1 s, by its rule's failure policy;
 *                    after the first, the breaker answers at once (one probe a second waits)
 *                    /health/ready turns 503 within about 2 × callTimeout (the client's probe)
 *   SIGCONT          decided by the limiter again, without a restart; ready again
 * </pre>
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class ClientModeHangIT {
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(250);
  private static final long ANSWER_BOUND_MILLIS = CALL_TIMEOUT.toMillis() + 1_000;

  /** Beyond 2 × callTimeout: the probe's period (T/2), the poll, and a busy machine. */
  private static final long READINESS_MARGIN_MILLIS = 500;

  @Test
  void check_memberStopped_answersWithinTheTimeoutByPolicy_thenTheGridAgain() throws Exception {
    Path work =
        Files.createDirectories(Path.of("target", "hang-" + System.nanoTime()).toAbsolutePath());
    Path rules =
        Files.writeString(
            work.resolve("rules.yaml"),
            "rules:\n"
                + "  - name: api\n    limit: 1000\n    window: 1m\n"
                // A token bucket that refills one permit per 4.8 h: no window boundary or refill
                // during the test changes the count the last assertion reads.
                + "  - name: login\n    algorithm: token_bucket\n    limit: 5\n    window: 1d\n");
    String cluster = TestNodes.uniqueClusterName();
    int memberPort = TestNodes.freePort();
    int memberRestPort = TestNodes.freePort();
    Map<String, String> memberEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    memberEnv.put("SLUICE_REST_PORT", Integer.toString(memberRestPort));
    Map<String, String> clientEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    clientEnv.put("SLUICE_MODE", "client");
    clientEnv.put("SLUICE_CALL_TIMEOUT", Long.toString(CALL_TIMEOUT.toMillis()) + "ms");
    clientEnv.put("SLUICE_FAILURE_POLICIES", "login=fail-closed");

    Set<Long> childrenBefore = ProcessSignals.children();
    NodeProcess member =
        new NodeProcess(NodeProcess.jar(), memberEnv, work.resolve("member.log"), work).start();
    long pid = -1;
    try {
      TestNodes.awaitCluster(
          List.of(member), List.of(memberRestPort), List.of(0), 1, Duration.ofSeconds(120));
      Set<Long> started = ProcessSignals.children();
      started.removeAll(childrenBefore);
      assertThat(started).as("the member process").hasSize(1);
      pid = started.iterator().next();

      try (SluiceNode node = SluiceNode.start(NodeSettings.load(null, clientEnv))) {
        int port = node.restPort();
        assertThat(check(port, "api").json().has("decidedBy")).isFalse();
        assertThat(check(port, "login").json().has("decidedBy")).isFalse();

        assertThat(TestNodes.get(port, "/health/ready").status()).isEqualTo(200);
        ProcessSignals.send("STOP", pid);
        long unreadyAfterMillis = awaitReadiness(port, 503, System.nanoTime());
        System.out.printf(
            "member stopped: /health/ready 503 after %d ms (call timeout %d ms)%n",
            unreadyAfterMillis, CALL_TIMEOUT.toMillis());
        assertThat(unreadyAfterMillis)
            .as("unready within about twice the call timeout")
            .isLessThanOrEqualTo(2 * CALL_TIMEOUT.toMillis() + READINESS_MARGIN_MILLIS);
        List<Long> millis = new ArrayList<>();
        long stoppedAt = System.nanoTime();
        while (millis.size() < 100 && System.nanoTime() - stoppedAt < seconds(4)) {
          long before = System.nanoTime();
          TestNodes.Answer api = check(port, "api");
          millis.add((System.nanoTime() - before) / 1_000_000);
          before = System.nanoTime();
          TestNodes.Answer login = check(port, "login");
          millis.add((System.nanoTime() - before) / 1_000_000);

          assertThat(api.status()).as(api.body()).isEqualTo(200);
          assertThat(api.json().get("decidedBy").asText()).isEqualTo("fail_open");
          assertThat(api.json().get("limit").asLong()).isEqualTo(1000);
          assertThat(login.status()).as(login.body()).isEqualTo(429);
          assertThat(login.json().get("decidedBy").asText()).isEqualTo("fail_closed");
          assertThat(login.raw().headers().firstValue("Retry-After")).isPresent();
        }
        long slow = millis.stream().filter(m -> m >= CALL_TIMEOUT.toMillis()).count();
        System.out.printf(
            "member stopped: %d answers in %d ms; first %d ms, mean %.1f ms, worst %d ms,"
                + " %d waited the %d ms timeout (probes); readiness %d%n",
            millis.size(),
            (System.nanoTime() - stoppedAt) / 1_000_000,
            millis.get(0),
            millis.stream().mapToLong(Long::longValue).average().orElse(0),
            millis.stream().mapToLong(Long::longValue).max().orElse(0),
            slow,
            CALL_TIMEOUT.toMillis(),
            TestNodes.get(port, "/health/ready").status());
        assertThat(millis).allMatch(m -> m < ANSWER_BOUND_MILLIS, "< timeout + 1 s");
        assertThat(millis.get(0))
            .as("the first check waits for the grid, up to the timeout")
            .isGreaterThanOrEqualTo(CALL_TIMEOUT.toMillis() - 10);
        assertThat(slow).as("one probe per second at most pays the timeout").isLessThan(10);

        ProcessSignals.send("CONT", pid);
        long resumedAt = System.nanoTime();
        long readyAfterMillis = awaitReadiness(port, 200, resumedAt);
        System.out.printf("member resumed: /health/ready 200 after %d ms%n", readyAfterMillis);
        List<String> after = new ArrayList<>();
        TestNodes.Answer api = check(port, "api");
        TestNodes.Answer login = check(port, "login");
        while ((api.json().has("decidedBy") || login.json().has("decidedBy"))
            && System.nanoTime() - resumedAt < seconds(30)) {
          after.add(api.json().path("decidedBy").asText("limiter"));
          after.add(login.json().path("decidedBy").asText("limiter"));
          Thread.sleep(50); // waiting for the breaker's next probe, not for limiter time
          api = check(port, "api");
          login = check(port, "login");
        }
        System.out.printf(
            "member resumed: both rules decided by the grid again after %d ms; before that %s%n",
            (System.nanoTime() - resumedAt) / 1_000_000, after);
        assertThat(api.json().has("decidedBy")).as(api.body()).isFalse();
        assertThat(login.json().has("decidedBy")).as(login.body()).isFalse();
        // The grid kept its count through the hang: one login before it, this one, and any probe
        // that timed out for the caller but was decided once the member ran again.
        System.out.println("login remaining after the hang: " + login.json().get("remaining"));
        assertThat(login.status()).isEqualTo(200);
        assertThat(login.json().get("remaining").asLong()).isBetween(0L, 3L);
      }
    } finally {
      if (pid > 0) {
        ProcessSignals.send(
            "CONT", pid); // a stopped process would not act on the SIGTERM of close()
      }
      member.close();
    }
  }

  /**
   * Polls {@code /health/ready} every 10 ms until it answers {@code status}, at most 30 s; returns
   * the milliseconds since {@code sinceNanos}.
   */
  private static long awaitReadiness(int port, int status, long sinceNanos)
      throws InterruptedException {
    while (TestNodes.get(port, "/health/ready").status() != status) {
      assertThat(System.nanoTime() - sinceNanos)
          .as("/health/ready " + status + " within 30 s")
          .isLessThan(seconds(30));
      Thread.sleep(10); // polling the node's probe, not moving limiter time
    }
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  private static TestNodes.Answer check(int port, String rule) {
    return TestNodes.post(port, "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"k\"}");
  }

  private static long seconds(long seconds) {
    return TimeUnit.SECONDS.toNanos(seconds);
  }
}
