package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.LimiterUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every call path of a Java client against a grid that hangs: the member is a {@code
 * sluice-node.jar} process stopped with SIGSTOP, so its connections stay open and nothing tells the
 * client; every call would wait for Hazelcast's invocation timeout (seconds) if a path read
 * anything synchronously. Each path must answer within the call timeout plus {@link #MARGIN}:
 *
 * <pre>
 *   batch (sync)        rules read asynchronously, within the deadline; answered by policy
 *   batch (async)       its future completes by policy within the deadline
 *   batch (mode all)    answered by policy
 *   coalesced hot key   8 threads on one key, one batch in flight, each caller within its deadline
 *   unknown rule        a rule the client never saw: answered by the failure policy, limit 0
 *   peek, reset         no local answer: LimiterUnavailableException within the deadline
 *   SIGCONT             decided by the grid again, by itself
 * </pre>
 *
 * <p>The breaker's probe interval is 10 ms here so that almost every call goes to the hung grid
 * (with the default second, calls after the first are answered by the open breaker at once, which
 * would test nothing).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class JavaClientHangIT {
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(100);

  /** Scheduling and GC on a shared machine running a member JVM beside this one. */
  private static final Duration MARGIN = Duration.ofSeconds(1);

  private static final Duration PROBE_INTERVAL = Duration.ofMillis(10);

  @Test
  void everyCallPath_gridHangs_answersWithinTheTimeout_thenTheGridAgain() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "client-hang-" + System.nanoTime()).toAbsolutePath());
    Path rules =
        Files.writeString(
            work.resolve("rules.yaml"),
            "rules:\n"
                + "  - name: api\n    limit: 100000\n    window: 1m\n"
                + "  - name: other\n    limit: 100000\n    window: 1m\n"
                + "  - name: login\n    algorithm: token_bucket\n    limit: 5\n    window: 1d\n");
    String cluster = TestNodes.uniqueClusterName();
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    env.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));

    Set<Long> childrenBefore = ProcessSignals.children();
    NodeProcess member =
        TestNodes.awaitReady(
            new NodeProcess(NodeProcess.jar(), env, work.resolve("member.log"), work).start(),
            Duration.ofSeconds(120));
    Set<Long> started = ProcessSignals.children();
    started.removeAll(childrenBefore);
    assertThat(started).as("the member process").hasSize(1);
    long pid = started.iterator().next();
    ExecutorService callers = Executors.newFixedThreadPool(8);
    try (SluiceClient client =
        SluiceClient.builder()
            .clusterName(cluster)
            .addresses("127.0.0.1:" + member.memberPort())
            .callTimeout(CALL_TIMEOUT)
            .probeInterval(PROBE_INTERVAL)
            .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
            .connectTimeout(Duration.ofSeconds(30))
            .build()) {
      // On a busy machine a first call can miss the 100 ms timeout: warm up until the grid decides.
      awaitGridDecision(client, "api");
      awaitGridDecision(client, "login");

      ProcessSignals.send("STOP", pid);
      Map<String, Long> millis = new LinkedHashMap<>();

      // A batch naming a rule no batch of this client named before: its rules are read first.
      List<Decision> batch =
          timed(
              millis,
              "batch (sync)",
              () ->
                  client.tryAcquireAll(List.of(Check.of("other", "b1"), Check.of("login", "b2"))));
      assertThat(batch)
          .extracting(Decision::decidedBy)
          .containsExactly(DecidedBy.FAIL_OPEN, DecidedBy.FAIL_CLOSED);

      probeInterval();
      List<Decision> async =
          timed(
              millis,
              "batch (async)",
              () ->
                  client
                      .tryAcquireAllAsync(List.of(Check.of("api", "a1"), Check.of("api", "a2")))
                      .toCompletableFuture()
                      .join());
      assertThat(async).extracting(Decision::decidedBy).containsOnly(DecidedBy.FAIL_OPEN);

      probeInterval();
      BatchOutcome all =
          timed(
              millis,
              "batch (mode all)",
              () ->
                  client.tryAcquireAll(
                      List.of(Check.of("api", "m1"), Check.of("login", "m2")), BatchMode.ALL));
      assertThat(all.allowed()).as("login fails closed, so the batch is refused").isFalse();

      probeInterval();
      List<Future<Long>> hot = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        hot.add(
            callers.submit(
                () -> {
                  long start = System.nanoTime();
                  Decision decision = client.tryAcquire("api", "hot");
                  assertThat(decision.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
                  return (System.nanoTime() - start) / 1_000_000;
                }));
      }
      long worstHot = 0;
      for (Future<Long> wait : hot) {
        worstHot = Math.max(worstHot, wait.get(30, TimeUnit.SECONDS));
      }
      millis.put("coalesced hot key (worst of 8)", worstHot);

      probeInterval();
      Decision unknown = timed(millis, "unknown rule", () -> client.tryAcquire("never-seen", "u"));
      assertThat(unknown.decidedBy()).isEqualTo(DecidedBy.FAIL_OPEN);
      assertThat(unknown.limit()).as("the rule's limit is unknown here").isZero();

      probeInterval();
      timedRun(
          millis,
          "peek",
          () ->
              assertThatThrownBy(() -> client.peek("api", "warm"))
                  .isInstanceOf(LimiterUnavailableException.class));
      probeInterval();
      timedRun(
          millis,
          "reset",
          () ->
              assertThatThrownBy(() -> client.reset("api", "warm"))
                  .isInstanceOf(LimiterUnavailableException.class));

      System.out.printf(
          "grid hung (SIGSTOP), call timeout %d ms: %s%n",
          CALL_TIMEOUT.toMillis(),
          millis.entrySet().stream()
              .map(e -> e.getKey() + " " + e.getValue() + " ms")
              .collect(Collectors.joining(", ")));
      assertThat(millis)
          .allSatisfy(
              (path, waited) ->
                  assertThat(waited)
                      .as(path)
                      .isLessThanOrEqualTo(CALL_TIMEOUT.plus(MARGIN).toMillis()));

      ProcessSignals.send("CONT", pid);
      long resumedAt = System.nanoTime();
      awaitGridDecision(client, "api");
      System.out.printf(
          "grid resumed: decided by the grid again after %d ms%n",
          (System.nanoTime() - resumedAt) / 1_000_000);
    } finally {
      callers.shutdownNow();
      ProcessSignals.send("CONT", pid); // a stopped process would not act on close()'s SIGTERM
      member.close();
    }
  }

  /**
   * Checks {@code rule} until the grid decides (at most 30 s): no call from the test reconnects.
   */
  private static void awaitGridDecision(SluiceClient client, String rule)
      throws InterruptedException {
    long start = System.nanoTime();
    Decision decision = client.tryAcquire(rule, "warm");
    while (decision.decidedBy() != DecidedBy.LIMITER
        && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30)) {
      Thread.sleep(20); // waiting for the member to answer, not for limiter time
      decision = client.tryAcquire(rule, "warm");
    }
    assertThat(decision.decidedBy()).as(rule + " decided by the grid").isEqualTo(DecidedBy.LIMITER);
  }

  /** Lets the breaker's next probe through, so that the next call goes to the hung grid. */
  private static void probeInterval() throws InterruptedException {
    Thread.sleep(PROBE_INTERVAL.toMillis() * 2);
  }

  private static <T> T timed(
      Map<String, Long> millis, String path, java.util.concurrent.Callable<T> call)
      throws Exception {
    long start = System.nanoTime();
    T answer = call.call();
    millis.put(path, (System.nanoTime() - start) / 1_000_000);
    return answer;
  }

  private static void timedRun(Map<String, Long> millis, String path, Runnable call) {
    long start = System.nanoTime();
    call.run();
    millis.put(path, (System.nanoTime() - start) / 1_000_000);
  }
}
