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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Java application ({@link SluiceClient}, in this JVM) deciding under load while the grid's
 * member processes fail: three {@code sluice-node.jar} members on loopback, 16 threads of checks
 * over three rules of different algorithms, and then either {@code kill -9} of one member or a
 * restart of all three, one after another. What the client promises (docs/client.md), checked on
 * every call:
 *
 * <ul>
 *   <li>no check waits longer than the call timeout plus {@link #MARGIN} (a busy two-core machine
 *       running three member JVMs and this one), not counting the time this JVM stood still
 *       (measured, {@link StallWatch}: no client answers while its process is not running);
 *   <li>none is admitted beyond its rule's limit: every rule fails closed here, so every admission
 *       is the grid's, and the admissions of each key, timed from outside, stay within the
 *       algorithm's bound ({@link AdmissionBounds}); the sliding_log rule has leases off, so its
 *       totals are exact across a kill (a lease parked in the killed member would stay counted);
 *   <li>decisions return to the grid by themselves, in bounded time: once the grid is settled again
 *       (the survivors, or the three restarted members, report a whole cluster with every partition
 *       safe: a partition still moving fails its calls, for longer on a loaded machine), the client
 *       gives its last failure-policy answer within {@link #BACK_BOUND}, and then decides on the
 *       grid for {@link #TAIL} more (at least {@value #TAIL_DECISIONS} grid decisions) without one
 *       failure-policy answer, with no call from the test to the client.
 * </ul>
 *
 * <pre>
 *   t=0        16 threads deciding through the client
 *   t≈2 s      kill -9 of member 1         (or: SIGTERM + restart of 0, then 1, then 2)
 *   ...        calls on its partitions time out (≤ timeout + margin), fail closed; the breaker
 *              answers locally for a probe interval after each failure
 *   settled    the survivors report a 2-member cluster (or the restarted ones a 3-member one)
 *              whose partitions are safe: every backup in place, no migration under way
 *   ≤ settled + BACK_BOUND       the last failure-policy answer
 *   ... + TAIL                   grid decisions only; then the load stops and everything is judged
 * </pre>
 *
 * <p>Why judge "back" from the grid being settled and not from the first quiet second (as this test
 * once did): the breaker opens for a whole {@link #PROBE_INTERVAL} after any failed call, and a
 * probe sent while the client still reconnects to a returned member fails and opens it again; a
 * quiet second seen by a polling thread also proves nothing when this JVM itself stood still (a GC
 * pause gives no answers at all, so none from the failure policy). Everything here is judged after
 * the load stopped, from the answers themselves.
 */
@ExtendWith(Seeds.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class JavaClientFaultsIT {
  private static final int THREADS = 16;
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(100);

  /** What a check may wait beyond its timeout: scheduling and GC on a loaded two-core machine. */
  private static final Duration MARGIN = Duration.ofSeconds(1);

  /**
   * The breaker's probe interval (the client's default, set here because the bounds below are made
   * of it): after a failed call every check is answered locally until the next probe.
   */
  private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

  /**
   * The Hazelcast client's reconnect backoff cap ({@code
   * SluiceClient.Builder#hazelcastClientConfig}): a member that is back, or a partition table that
   * changed, is known to the client within it.
   */
  private static final Duration RECONNECT = Duration.ofSeconds(1);

  /**
   * How soon after the grid is settled the client gives its last failure-policy answer: a call that
   * fails while the client still reconnects (within {@link #RECONNECT}) opens the breaker for one
   * {@link #PROBE_INTERVAL}, and the probe after it finds the grid; plus the margin of a loaded
   * machine.
   */
  private static final Duration BACK_BOUND = RECONNECT.plus(PROBE_INTERVAL).plus(MARGIN);

  /**
   * How long the client is watched deciding on the grid after {@link #BACK_BOUND}: two probe
   * intervals, so that a breaker that opened again would show.
   */
  private static final Duration TAIL = PROBE_INTERVAL.multipliedBy(2);

  /** Grid decisions the tail must contain at least, so that it is evidence and not a pause. */
  private static final int TAIL_DECISIONS = 1_000;

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

  private static final List<String> RULE_NAMES = List.of("exact", "rate", "window");

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
      TestNodes.awaitCluster(nodes, restPorts, List.of(0, 2), 2, Duration.ofSeconds(60));
      TestNodes.awaitGridSafe(restPorts.get(0), 2, Duration.ofSeconds(60));
      long settledAt = System.nanoTime();
      load.watchBackOnGrid(settledAt);
      load.stop();
      load.report("kill -9 of member 1", faultAt, settledAt);
      load.assertPromisesKept(settledAt);
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
      TestNodes.awaitGridSafe(restPorts.get(0), 3, Duration.ofSeconds(60));
      long settledAt = System.nanoTime();
      System.out.printf("restart of all three took %.1f s%n", (settledAt - faultAt) / 1e9);
      load.watchBackOnGrid(settledAt);
      load.stop();
      load.report("restart of all three, one by one", faultAt, settledAt);
      load.assertPromisesKept(settledAt);
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
        .probeInterval(PROBE_INTERVAL)
        .failurePolicy(FailurePolicy.FAIL_CLOSED)
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static boolean isLocal(Decision decision) {
    return decision.decidedBy() == DecidedBy.FAIL_OPEN
        || decision.decidedBy() == DecidedBy.FAIL_CLOSED;
  }

  /**
   * {@value #THREADS} threads deciding through the client, each from its own seed.
   *
   * <p>Millions of checks are answered locally in microseconds (the breaker, the denied cache), so
   * each thread keeps what the judgement needs in its own {@link ThreadLog}, mostly in primitive
   * arrays: keeping every answer as objects once held over a gigabyte and paused this JVM for over
   * a second in GC, which the checks' waits then counted.
   */
  private static final class Load implements AutoCloseable {
    /** One answered check, kept for admissions, slow waits and late failure-policy answers. */
    record Answer(String rule, String key, long sentNanos, long answeredNanos, Decision decision) {}

    /** The answers are also counted per slot of this length, by when they came (the timeline). */
    private static final long SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final int SLOTS = (int) (TimeUnit.MINUTES.toNanos(6) / SLOT_NANOS);

    private final SluiceClient client;
    private final AtomicLong decisions = new AtomicLong();
    private final AtomicLongArray byDecider = new AtomicLongArray(DecidedBy.values().length);
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final List<ThreadLog> logs = new ArrayList<>();
    private final StallWatch stalls = new StallWatch();

    /**
     * From when a failure-policy answer breaks the promise: the settled time plus {@link
     * #BACK_BOUND}; {@code Long.MAX_VALUE} until the grid is settled.
     */
    private volatile long judgedFromNanos = Long.MAX_VALUE;

    /** Grid decisions answered in the tail: from {@link #judgedFromNanos} on. */
    private long tailDecisions;

    /** Epoch nanoseconds at {@link #nanoOrigin}: admissions are judged on the members' clock. */
    private final long nanoOrigin = System.nanoTime();

    private final long epochOrigin = epochNanos(java.time.Instant.now());

    Load(SluiceClient client) {
      this.client = client;
      for (int t = 0; t < THREADS; t++) {
        Random random = Seeds.random("load-" + t);
        ThreadLog log = new ThreadLog();
        logs.add(log);
        Thread thread = new Thread(() -> run(random, log), "client-load-" + t);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    private void run(Random random, ThreadLog log) {
      long bound = CALL_TIMEOUT.plus(MARGIN).toNanos();
      while (!stop.get()) {
        String rule = RULE_NAMES.get(random.nextInt(RULE_NAMES.size()));
        String key = rule + "-" + random.nextInt(KEYS_PER_RULE.get(rule));
        long sent = System.nanoTime();
        Decision decision;
        try {
          decision = client.tryAcquire(rule, key);
        } catch (RuntimeException e) {
          log.errors.add(rule + "/" + key + ": " + e);
          continue;
        }
        long answered = System.nanoTime();
        byDecider.incrementAndGet(decision.decidedBy().ordinal());
        decisions.incrementAndGet();
        log.waits.record(answered - sent);
        int slot = (int) Math.min(SLOTS - 1, Math.max(0, (answered - nanoOrigin) / SLOT_NANOS));
        boolean local = isLocal(decision);
        if (local) {
          log.localPerSlot[slot]++;
          log.lastLocalNanos = Math.max(log.lastLocalNanos, answered);
        } else if (decision.decidedBy() == DecidedBy.LIMITER) {
          log.gridPerSlot[slot]++;
        }
        if (decision.allowed() || answered - sent > bound || local && answered > judgedFromNanos) {
          Answer answer = new Answer(rule, key, sent, answered, decision);
          if (decision.allowed()) {
            log.admitted.add(answer);
          }
          // Candidates only: judged after the load, once every stall of this JVM is known.
          if (answered - sent > bound && log.slow.size() < ThreadLog.MAX_CANDIDATES) {
            log.slow.add(answer);
          }
          if (local
              && answered > judgedFromNanos
              && log.lateLocal.size() < ThreadLog.MAX_CANDIDATES) {
            log.lateLocal.add(answer);
          }
        }
      }
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
     * Keeps the load going until {@link #TAIL} after {@code settledAt + BACK_BOUND}, and until the
     * grid made {@value #TAIL_DECISIONS} decisions since that bound (at most 30 s more: a client
     * that stays local fails the judgement, it does not hang the test).
     */
    void watchBackOnGrid(long settledAt) throws InterruptedException {
      long judgedFrom = settledAt + BACK_BOUND.toNanos();
      judgedFromNanos = judgedFrom;
      sleepUntil(judgedFrom);
      long gridBefore = byDecider.get(DecidedBy.LIMITER.ordinal());
      long tailEnd = judgedFrom + TAIL.toNanos();
      long deadline = tailEnd + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline
          && (System.nanoTime() < tailEnd
              || byDecider.get(DecidedBy.LIMITER.ordinal()) - gridBefore < TAIL_DECISIONS)) {
        Thread.sleep(20); // watching the client decide, not moving limiter time
      }
      tailDecisions = byDecider.get(DecidedBy.LIMITER.ordinal()) - gridBefore;
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
      long left;
      while ((left = nanos - System.nanoTime()) > 0) {
        Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }

    @Override
    public void close() {
      stop();
    }

    /** Stops the threads and waits for their last calls (each bounded by the call timeout). */
    void stop() {
      if (stop.getAndSet(true)) {
        return;
      }
      stalls.stop();
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

    /** The answered time of the last failure-policy answer, or 0 if there was none. */
    private long lastLocalNanos() {
      return logs.stream().mapToLong(log -> log.lastLocalNanos).max().orElse(0);
    }

    void report(String fault, long faultAt, long settledAt) {
      WaitHistogram waits = new WaitHistogram();
      logs.forEach(log -> waits.add(log.waits));
      long lastLocal = lastLocalNanos();
      System.out.printf(
          "%s: %d checks from %d threads, decided by %s; wait p50 %.1f ms, p99 %.1f ms, p99.9 %.1f"
              + " ms, max %.1f ms (timeout %d ms + margin %d ms); grid settled %d ms after the"
              + " fault; last failure-policy answer %s (bound %d ms), then %d grid decisions in the"
              + " tail; exact (sliding_log %d/1h, leases off) admitted per key %s; %d errors;"
              + " this JVM stood still %s%n"
              + "  failure-policy answers, in 100 ms slots from the fault: %s%n",
          fault,
          waits.count,
          THREADS,
          deciders(),
          waits.percentileMillis(0.50),
          waits.percentileMillis(0.99),
          waits.percentileMillis(0.999),
          waits.maxNanos / 1e6,
          CALL_TIMEOUT.toMillis(),
          MARGIN.toMillis(),
          (settledAt - faultAt) / 1_000_000,
          lastLocal == 0
              ? "none"
              : lastLocal > settledAt
                  ? (lastLocal - settledAt) / 1_000_000 + " ms after settling"
                  : (settledAt - lastLocal) / 1_000_000 + " ms before settling",
          BACK_BOUND.toMillis(),
          tailDecisions,
          EXACT_LIMIT,
          admittedPerKey("exact"),
          errors().size(),
          stalls.describe(),
          timeline(faultAt));
    }

    /** Runs of slots with failure-policy answers, from the fault on, with their grid decisions. */
    private String timeline(long faultAt) {
      int[] local = new int[SLOTS];
      int[] grid = new int[SLOTS];
      for (ThreadLog log : logs) {
        for (int s = 0; s < SLOTS; s++) {
          local[s] += log.localPerSlot[s];
          grid[s] += log.gridPerSlot[s];
        }
      }
      int first = (int) Math.max(0, (faultAt - nanoOrigin) / SLOT_NANOS);
      List<String> runs = new ArrayList<>();
      for (int s = first; s < SLOTS; s++) {
        if (local[s] == 0) {
          continue;
        }
        int end = s;
        long locals = 0;
        long grids = 0;
        while (end < SLOTS && local[end] > 0) {
          locals += local[end];
          grids += grid[end];
          end++;
        }
        runs.add(
            String.format(
                "[%.1f s, %.1f s) %d local, %d grid",
                (s - first) * SLOT_NANOS / 1e9, (end - first) * SLOT_NANOS / 1e9, locals, grids));
        s = end;
      }
      return runs.isEmpty() ? "none" : String.join("; ", runs);
    }

    private List<String> errors() {
      return logs.stream().flatMap(log -> log.errors.stream()).toList();
    }

    private List<Answer> all(Function<ThreadLog, List<Answer>> part) {
      return logs.stream().flatMap(log -> part.apply(log).stream()).toList();
    }

    void assertPromisesKept(long settledAt) {
      assertThat(threads).as("load threads still calling after stop").noneMatch(Thread::isAlive);
      assertThat(errors()).as("calls that threw").isEmpty();
      // A check's wait is judged on the time this JVM ran: while it stood still (a GC pause, or no
      // CPU for it among three member JVMs on two shared cores) no client can answer, however it
      // keeps its deadline. The rolling restart once ran at 997 of 1,100 ms; its slow answers were
      // failure-policy answers whose calls spanned such stalls.
      long bound = CALL_TIMEOUT.plus(MARGIN).toNanos();
      assertThat(
              all(log -> log.slow).stream()
                  .filter(
                      a ->
                          a.answeredNanos()
                                  - a.sentNanos()
                                  - stalls.stalledWithin(a.sentNanos(), a.answeredNanos())
                              > bound)
                  .limit(20)
                  .toList())
          .as(
              "checks that waited beyond timeout + margin, the time this JVM stood still (%s) not"
                  + " counted",
              stalls.describe())
          .isEmpty();
      assertThat(admittedPerKey("exact"))
          .as("exact admitted per key")
          .allSatisfy((key, count) -> assertThat(count).isLessThanOrEqualTo(EXACT_LIMIT));
      for (String rule : RULE_NAMES) {
        Policy policy = policyOf(rule);
        Map<String, List<Admission>> byKey =
            all(log -> log.admitted).stream()
                .filter(a -> a.rule().equals(rule))
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
      assertThat(
              all(log -> log.lateLocal).stream()
                  .filter(
                      a ->
                          a.answeredNanos() - stalls.stalledWithin(settledAt, a.answeredNanos())
                              > settledAt + BACK_BOUND.toNanos())
                  .limit(20)
                  .map(
                      a ->
                          String.format(
                              "%s/%s sent %+d ms, answered %+d ms from settling: %s",
                              a.rule(),
                              a.key(),
                              (a.sentNanos() - settledAt) / 1_000_000,
                              (a.answeredNanos() - settledAt) / 1_000_000,
                              a.decision().decidedBy()))
                  .toList())
          .as(
              "failure-policy answers later than %d ms after the grid was settled, the time this"
                  + " JVM stood still not counted (the last came %d ms after it; this JVM stood"
                  + " still %s)",
              BACK_BOUND.toMillis(), (lastLocalNanos() - settledAt) / 1_000_000, stalls.describe())
          .isEmpty();
      assertThat(tailDecisions)
          .as("grid decisions in the %d ms watched after the bound", TAIL.toMillis())
          .isGreaterThanOrEqualTo(TAIL_DECISIONS);
    }

    private Map<String, Long> admittedPerKey(String rule) {
      return all(log -> log.admitted).stream()
          .filter(a -> a.rule().equals(rule))
          .collect(Collectors.groupingBy(Answer::key, TreeMap::new, Collectors.counting()));
    }

    private static long epochNanos(java.time.Instant instant) {
      return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private long epoch(long nanos) {
      return epochOrigin + (nanos - nanoOrigin);
    }
  }

  /**
   * What one load thread saw: written by that thread only, read after it ended ({@code join}).
   * Objects only for the few answers judged one by one; counts and waits in arrays.
   */
  private static final class ThreadLog {
    /** Slow or late answers kept per thread for the judgement after the load, at most. */
    static final int MAX_CANDIDATES = 10_000;

    final List<Load.Answer> admitted = new ArrayList<>();
    final List<Load.Answer> slow = new ArrayList<>();
    final List<Load.Answer> lateLocal = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    final WaitHistogram waits = new WaitHistogram();
    final int[] localPerSlot = new int[Load.SLOTS];
    final int[] gridPerSlot = new int[Load.SLOTS];
    long lastLocalNanos;
  }

  /**
   * Waits counted in 10 µs buckets up to 2 s (one beyond for longer ones), and the longest exactly:
   * millions of answers in a fixed 1.6 MB per thread, for the report's percentiles.
   */
  private static final class WaitHistogram {
    private static final long BUCKET_NANOS = TimeUnit.MICROSECONDS.toNanos(10);
    private static final int BUCKETS = (int) (TimeUnit.SECONDS.toNanos(2) / BUCKET_NANOS) + 1;

    private final long[] counts = new long[BUCKETS];
    long count;
    long maxNanos;

    void record(long waitNanos) {
      counts[(int) Math.min(BUCKETS - 1, Math.max(0, waitNanos / BUCKET_NANOS))]++;
      count++;
      maxNanos = Math.max(maxNanos, waitNanos);
    }

    void add(WaitHistogram other) {
      for (int b = 0; b < BUCKETS; b++) {
        counts[b] += other.counts[b];
      }
      count += other.count;
      maxNanos = Math.max(maxNanos, other.maxNanos);
    }

    /** The upper edge of the bucket the {@code p} quantile falls in (the longest, past 2 s). */
    double percentileMillis(double p) {
      long rank = (long) Math.ceil(p * count);
      long seen = 0;
      for (int b = 0; b < BUCKETS - 1; b++) {
        seen += counts[b];
        if (seen >= rank && seen > 0) {
          return (b + 1) * BUCKET_NANOS / 1e6;
        }
      }
      return maxNanos / 1e6;
    }
  }

  /**
   * Times this JVM stood still (GC, or no CPU for it on a loaded machine): a thread that sleeps 10
   * ms and notes each wake-up later than 100 ms, as the interval from when it should have woken to
   * when it did. The judgement does not count that time in a check's wait ({@link #stalledWithin}):
   * nothing in this JVM could answer then. A shorter stall is not noted, and is what the margin is
   * for.
   */
  private static final class StallWatch {
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long NOTED_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final List<long[]> stalls = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread = new Thread(this::watch, "stall-watch");

    StallWatch() {
      thread.setDaemon(true);
      thread.start();
    }

    private void watch() {
      while (!stop.get()) {
        long before = System.nanoTime();
        try {
          Thread.sleep(TimeUnit.NANOSECONDS.toMillis(TICK_NANOS));
        } catch (InterruptedException e) {
          return;
        }
        long woke = System.nanoTime();
        long late = woke - before - TICK_NANOS;
        if (late > NOTED_NANOS) {
          synchronized (stalls) {
            stalls.add(new long[] {woke - late, woke});
          }
        }
      }
    }

    void stop() {
      stop.set(true);
      try {
        thread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** How long this JVM stood still between {@code fromNanos} and {@code toNanos}. */
    long stalledWithin(long fromNanos, long toNanos) {
      long stalled = 0;
      synchronized (stalls) {
        for (long[] stall : stalls) {
          stalled += Math.max(0, Math.min(toNanos, stall[1]) - Math.max(fromNanos, stall[0]));
        }
      }
      return stalled;
    }

    String describe() {
      synchronized (stalls) {
        long longest = stalls.stream().mapToLong(stall -> stall[1] - stall[0]).max().orElse(0);
        return String.format(
            "%d times over %d ms (longest %d ms)",
            stalls.size(), NOTED_NANOS / 1_000_000, longest / 1_000_000);
      }
    }
  }

  private static final Map<String, Policy> POLICIES =
      RulesFile.parse("the test's rules", RULES).stream()
          .collect(Collectors.toMap(rule -> rule.name(), rule -> rule.policy()));

  private static Policy policyOf(String rule) {
    return POLICIES.get(rule);
  }
}
