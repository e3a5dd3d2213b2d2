package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.contract.AdmissionBounds;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import dev.sluice.core.rules.RulesFile;
import dev.sluice.core.test.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Java application ({@link SluiceClient}, in this JVM) deciding under load while the grid's
 * member processes fail: three {@code sluice-node.jar} members on loopback, 16 threads of checks
 * over three rules of different algorithms, and then either {@code kill -9} of one member or a
 * restart of all three, one after another. What the client promises (DESIGN §5), checked on every
 * call:
 *
 * <ul>
 *   <li>no check waits longer than the call timeout plus {@link #MARGIN} (a busy two-core machine
 *       running three member JVMs and this one);
 *   <li>none is admitted beyond its rule's limit: every rule fails closed here, so every admission
 *       is the grid's, and the admissions of each key, timed from outside, stay within the
 *       algorithm's bound ({@link AdmissionBounds}); the sliding_log rule has leases off, so its
 *       totals are exact across a kill (a lease parked in the killed member would stay counted);
 *   <li>decisions return to the grid by themselves: after the fault, a whole second of checks
 *       without one failure-policy answer, with no call from the test to the client.
 * </ul>
 *
 * <pre>
 *   t=0      16 threads deciding through the client
 *   t≈2 s    kill -9 of member 1         (or: SIGTERM + restart of 0, then 1, then 2)
 *   ...      calls on its partitions time out (≤ timeout + margin), fail closed; backups promote
 *   t≈?      a second without failure-policy answers: back on the grid
 * </pre>
 */
@ExtendWith(Seeds.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JavaClientFaultsIT {
  private static final int THREADS = 16;
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(100);

  /** What a check may wait beyond its timeout: scheduling and GC on a loaded two-core machine. */
  private static final Duration MARGIN = Duration.ofSeconds(1);

  private static final int EXACT_LIMIT = 300;

  /**
   * Leases off on every rule: an admission is then timed where it is decided, which is what {@link
   * AdmissionBounds} judges (a leased permit is admitted by its owner before the client hands it
   * out), and a lease parked in a killed member cannot blur the exact totals.
   */
  private static final String RULES =
      "rules:\n"
          // Exact, and an hour long: every admission of the test counts against one budget.
          + "  - name: exact\n    algorithm: sliding_log\n    limit: "
          + EXACT_LIMIT
          + "\n    window: 1h\n    leases: \"off\"\n"
          + "  - name: rate\n    algorithm: gcra\n    limit: 200\n    window: 1s\n    burst: 20\n"
          + "    leases: \"off\"\n"
          + "  - name: window\n    algorithm: fixed_window\n    limit: 150\n    window: 10s\n"
          + "    leases: \"off\"\n";

  private static final Map<String, Integer> KEYS_PER_RULE =
      Map.of("exact", 6, "rate", 3, "window", 6);

  private final List<NodeProcess> nodes = new ArrayList<>();
  private final List<Integer> restPorts = new ArrayList<>();
  private Path work;

  @AfterEach
  void stopAll() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void kill9OfOneMember_underLoad_boundedWaits_noOverAdmission_backOnTheGridByItself()
      throws Exception {
    startCluster("client-kill");
    try (SluiceClient client = client();
        Load load = new Load(client)) {
      load.awaitDecisions(2_000);
      long faultAt = System.nanoTime();
      nodes.get(1).kill(); // destroyForcibly: SIGKILL, the member's sockets die with it
      long backAt = load.awaitBackOnGrid(faultAt, Duration.ofSeconds(40));
      load.awaitDecisions(1_000);
      load.stop();
      load.report("kill -9 of member 1", faultAt, backAt);
      load.assertPromisesKept(backAt);
    }
  }

  @Test
  void restartOfAllThreeOneByOne_underLoad_boundedWaits_noOverAdmission_backOnTheGridByItself()
      throws Exception {
    startCluster("client-rolling");
    try (SluiceClient client = client();
        Load load = new Load(client)) {
      load.awaitDecisions(2_000);
      long faultAt = System.nanoTime();
      for (int i = 0; i < 3; i++) {
        nodes.get(i).close(); // SIGTERM: the member hands its partitions over, then leaves
        nodes.set(i, nodes.get(i).restarted(work.resolve("node-" + i + "-restarted.log")));
        TestNodes.awaitCluster(nodes, restPorts, List.of(0, 1, 2), 3, Duration.ofSeconds(60));
      }
      System.out.printf("restart of all three took %.1f s%n", (System.nanoTime() - faultAt) / 1e9);
      long backAt = load.awaitBackOnGrid(faultAt, Duration.ofSeconds(40));
      load.awaitDecisions(1_000);
      load.stop();
      load.report("restart of all three, one by one", faultAt, backAt);
      load.assertPromisesKept(backAt);
    }
  }

  private void startCluster(String name) throws Exception {
    work =
        Files.createDirectories(Path.of("target", name + "-" + System.nanoTime()).toAbsolutePath());
    Path rules = Files.writeString(work.resolve("rules.yaml"), RULES);
    String cluster = TestNodes.uniqueClusterName();
    List<Integer> memberPorts =
        List.of(TestNodes.freePort(), TestNodes.freePort(), TestNodes.freePort());
    for (int i = 0; i < 3; i++) {
      Map<String, String> env =
          TestNodes.environment(cluster, memberPorts.get(i), memberPorts, rules);
      int restPort = TestNodes.freePort();
      env.put("SLUICE_REST_PORT", Integer.toString(restPort));
      restPorts.add(restPort);
      nodes.add(
          new NodeProcess(NodeProcess.jar(), env, work.resolve("node-" + i + ".log"), work)
              .start());
    }
    TestNodes.awaitCluster(nodes, restPorts, List.of(0, 1, 2), 3, Duration.ofSeconds(120));
    this.cluster = cluster;
    this.memberPorts = memberPorts;
  }

  private String cluster;
  private List<Integer> memberPorts;

  private SluiceClient client() {
    return SluiceClient.builder()
        .clusterName(cluster)
        .addresses(memberPorts.stream().map(port -> "127.0.0.1:" + port).toArray(String[]::new))
        .callTimeout(CALL_TIMEOUT)
        .failurePolicy(FailurePolicy.FAIL_CLOSED)
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }

  /** {@value #THREADS} threads deciding through the client, each from its own seed. */
  private static final class Load implements AutoCloseable {
    /** One answered check. */
    record Answer(String rule, String key, long sentNanos, long answeredNanos, Decision decision) {}

    private final SluiceClient client;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final AtomicLong decisions = new AtomicLong();
    private final AtomicLong lastLocalNanos = new AtomicLong();
    private final AtomicLongArray byDecider = new AtomicLongArray(DecidedBy.values().length);
    private final List<String> errors = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /** Epoch nanoseconds at {@link #nanoOrigin}: admissions are judged on the members' clock. */
    private final long nanoOrigin = System.nanoTime();

    private final long epochOrigin = epochNanos(java.time.Instant.now());

    Load(SluiceClient client) {
      this.client = client;
      for (int t = 0; t < THREADS; t++) {
        Random random = Seeds.random("load-" + t);
        Thread thread = new Thread(() -> run(random), "client-load-" + t);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    private void run(Random random) {
      List<String> rules = List.of("exact", "rate", "window");
      while (!stop.get()) {
        String rule = rules.get(random.nextInt(rules.size()));
        String key = rule + "-" + random.nextInt(KEYS_PER_RULE.get(rule));
        long sent = System.nanoTime();
        Decision decision;
        try {
          decision = client.tryAcquire(rule, key);
        } catch (RuntimeException e) {
          synchronized (errors) {
            errors.add(rule + "/" + key + ": " + e);
          }
          continue;
        }
        long answered = System.nanoTime();
        answers.add(new Answer(rule, key, sent, answered, decision));
        byDecider.incrementAndGet(decision.decidedBy().ordinal());
        if (isLocal(decision)) {
          lastLocalNanos.accumulateAndGet(answered, Math::max);
        }
        decisions.incrementAndGet();
      }
    }

    static boolean isLocal(Decision decision) {
      return decision.decidedBy() == DecidedBy.FAIL_OPEN
          || decision.decidedBy() == DecidedBy.FAIL_CLOSED;
    }

    void awaitDecisions(long more) throws InterruptedException {
      long target = decisions.get() + more;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (decisions.get() < target && System.nanoTime() < deadline) {
        Thread.sleep(20); // waiting for the load threads, not moving limiter time
      }
      assertThat(decisions.get()).as("decisions made").isGreaterThanOrEqualTo(target);
    }

    /**
     * Waits until a whole second of checks passed without a failure-policy answer, at least one
     * second after {@code faultAt}; returns when that second began (the last local answer, or the
     * fault itself if there was none).
     */
    long awaitBackOnGrid(long faultAt, Duration limit) throws InterruptedException {
      long deadline = faultAt + limit.toNanos();
      long second = TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < deadline) {
        long now = System.nanoTime();
        long lastLocal = Math.max(faultAt, lastLocalNanos.get());
        if (now - lastLocal >= second && now - faultAt >= second) {
          return lastLocal;
        }
        Thread.sleep(50); // waiting for the client to find the grid again, not limiter time
      }
      throw new AssertionError(
          "still answering by the failure policy "
              + limit
              + " after the fault; decided by "
              + deciders());
    }

    @Override
    public void close() {
      stop();
    }

    /** Stops the threads and waits for their last calls (each bounded by the call timeout). */
    void stop() {
      stop.set(true);
      for (Thread thread : threads) {
        try {
          thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    Map<DecidedBy, Long> deciders() {
      Map<DecidedBy, Long> counts = new EnumMap<>(DecidedBy.class);
      for (DecidedBy by : DecidedBy.values()) {
        long count = byDecider.get(by.ordinal());
        if (count > 0) {
          counts.put(by, count);
        }
      }
      return counts;
    }

    void report(String fault, long faultAt, long backAt) {
      long[] millis =
          answers.stream()
              .mapToLong(a -> (a.answeredNanos() - a.sentNanos()) / 1_000)
              .sorted()
              .toArray();
      Map<String, Long> admittedExact = admittedPerKey("exact");
      System.out.printf(
          "%s: %d checks from %d threads, decided by %s; wait p50 %.1f ms, p99 %.1f ms, p99.9 %.1f"
              + " ms, max %.1f ms (timeout %d ms + margin %d ms); failure-policy answers until %d ms"
              + " after the fault; exact (sliding_log %d/1h, leases off) admitted per key %s;"
              + " %d errors%n",
          fault,
          millis.length,
          THREADS,
          deciders(),
          percentile(millis, 0.50),
          percentile(millis, 0.99),
          percentile(millis, 0.999),
          millis[millis.length - 1] / 1_000.0,
          CALL_TIMEOUT.toMillis(),
          MARGIN.toMillis(),
          (backAt - faultAt) / 1_000_000,
          EXACT_LIMIT,
          admittedExact,
          errors.size());
    }

    void assertPromisesKept(long backAt) {
      assertThat(errors).as("calls that threw").isEmpty();
      long bound = CALL_TIMEOUT.plus(MARGIN).toNanos();
      List<Answer> slow =
          answers.stream().filter(a -> a.answeredNanos() - a.sentNanos() > bound).toList();
      assertThat(slow).as("checks that waited beyond timeout + margin").isEmpty();
      assertThat(admittedPerKey("exact"))
          .as("exact admitted per key")
          .allSatisfy((key, count) -> assertThat(count).isLessThanOrEqualTo(EXACT_LIMIT));
      for (String rule : List.of("exact", "rate", "window")) {
        Policy policy = policyOf(rule);
        Map<String, List<Admission>> byKey =
            answers.stream()
                .filter(a -> a.rule().equals(rule) && a.decision().allowed())
                .collect(
                    Collectors.groupingBy(
                        Answer::key,
                        Collectors.mapping(
                            a -> new Admission(epoch(a.sentNanos()), epoch(a.answeredNanos())),
                            Collectors.toList())));
        byKey.forEach(
            (key, admissions) ->
                assertThat(AdmissionBounds.violation(policy, admissions))
                    .as(rule + "/" + key)
                    .isEmpty());
      }
      List<Answer> localAfter =
          answers.stream().filter(a -> a.sentNanos() > backAt && isLocal(a.decision())).toList();
      assertThat(localAfter).as("failure-policy answers once back on the grid").isEmpty();
    }

    private Map<String, Long> admittedPerKey(String rule) {
      return answers.stream()
          .filter(a -> a.rule().equals(rule) && a.decision().allowed())
          .collect(Collectors.groupingBy(Answer::key, TreeMap::new, Collectors.counting()));
    }

    private static long epochNanos(java.time.Instant instant) {
      return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private long epoch(long nanos) {
      return epochOrigin + (nanos - nanoOrigin);
    }

    private static double percentile(long[] sortedMicros, double p) {
      int index = (int) Math.min(sortedMicros.length - 1, Math.floor(p * sortedMicros.length));
      return sortedMicros[index] / 1_000.0;
    }
  }

  private static final Map<String, Policy> POLICIES =
      RulesFile.parse("the test's rules", RULES).stream()
          .collect(Collectors.toMap(rule -> rule.name(), rule -> rule.policy()));

  private static Policy policyOf(String rule) {
    return POLICIES.get(rule);
  }
}
