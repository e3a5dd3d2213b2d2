package dev.sluice.bench.load;

import com.hazelcast.config.InMemoryFormat;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The load and peer comparison harness: every scenario of issue 7, side by side in one run, written
 * to {@code docs/benchmarks.md} with plots under {@code docs/img/}.
 *
 * <p>Run it through {@code benchmarks/run.sh [--quick]}, which builds, installs redis-server when
 * absent and starts this class. Directly: {@code java -cp <benchmarks classpath>
 * dev.sluice.bench.load.LoadBench [--quick] [--only S2,S5] [--doc docs/benchmarks.md] [--img
 * docs/img] [--node-jar grid-node/target/sluice-node.jar]}.
 *
 * <h2>How it stays fair</h2>
 *
 * Every contender runs under the same {@link LoadDriver} (same threads, same seeded key sequence,
 * same JVM and flags), servers are separate JVMs (or redis-server) on loopback started with the
 * same flags, every contender is warmed up, and the measured rounds are interleaved (round 1 of
 * every contender, then round 2, ...) so that a noisy neighbour on the shared machine disturbs all
 * of them alike; the report gives medians and the spread. Ratios are always from the same run.
 */
public final class LoadBench {
  /** The limit of the throughput rule {@code bench} (per second): high, so decisions admit. */
  public static final long BENCH_LIMIT = 1_000_000;

  /** The limit of the attack rule (per second): one key at 10 req/s, hammered. */
  public static final long ATTACK_LIMIT = 10;

  private static final Duration BENCH_WINDOW = Duration.ofSeconds(1);
  private static final long MAX_OPS_PER_ROUND = 50_000_000L;

  private final Settings settings;
  private final Set<String> only;
  private final Servers servers;
  private final Report report = new Report();
  private final StateMapSettings stateMap;
  private Path gridOutput;

  /** Run lengths for quick (CI smoke) and full (published) mode. */
  record Settings(
      boolean quick,
      Duration warmup,
      Duration round,
      int rounds,
      int memoryKeys,
      Path doc,
      Path images,
      Path nodeJar,
      String command) {}

  /** The state map settings Bucket4j's map copies from Sluice's, and where they came from. */
  record StateMapSettings(int backupCount, InMemoryFormat format, String source) {}

  LoadBench(Settings settings, Set<String> only) {
    this.settings = settings;
    this.only = only;
    this.servers = new Servers(Path.of("benchmarks", "target", "load-logs"), settings.nodeJar());
    this.stateMap = SluiceContenders.stateMapSettings();
  }

  public static void main(String[] args) throws Exception {
    boolean quick = false;
    boolean strict = false;
    Path gridOutput = null;
    Set<String> only = new LinkedHashSet<>();
    Path doc = null;
    Path images = null;
    Path nodeJar = Path.of("grid-node", "target", "sluice-node.jar");
    String command = System.getProperty("bench.command", "benchmarks/run.sh");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--strict" -> strict = true;
        case "--only" -> only.addAll(List.of(args[++i].toUpperCase(Locale.ROOT).split(",")));
        case "--doc" -> doc = Path.of(args[++i]);
        case "--img" -> images = Path.of(args[++i]);
        case "--node-jar" -> nodeJar = Path.of(args[++i]);
        case "--grid-output" -> gridOutput = Path.of(args[++i]);
        default -> {
          System.err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    // Only a full run publishes: a quick (CI smoke) run reports under target/ unless told
    // otherwise.
    if (doc == null) {
      doc =
          quick
              ? Path.of("benchmarks", "target", "benchmarks-quick.md")
              : Path.of("docs", "benchmarks.md");
    }
    if (images == null) {
      images = quick ? Path.of("benchmarks", "target", "img") : Path.of("docs", "img");
    }
    Settings settings =
        quick
            ? new Settings(
                true,
                Duration.ofMillis(800),
                Duration.ofMillis(700),
                2,
                20_000,
                doc,
                images,
                nodeJar,
                command)
            : new Settings(
                false,
                Duration.ofSeconds(4),
                Duration.ofSeconds(5),
                5,
                1_000_000,
                doc,
                images,
                nodeJar,
                command);
    LoadBench bench = new LoadBench(settings, only);
    bench.gridOutput = gridOutput;
    List<String> sluiceNotRun;
    try {
      bench.run();
      sluiceNotRun = bench.sluiceNotRun();
    } finally {
      bench.servers.close();
    }
    sluiceNotRun.forEach(line -> System.out.println("Sluice did not run: " + line));
    // Peers may be absent (reported as "not run"); with --strict, Sluice itself may not.
    System.exit(strict && !sluiceNotRun.isEmpty() ? 1 : 0);
  }

  void run() throws Exception {
    System.out.println("state map: " + stateMap);
    if (settings.quick()) {
      boolean peers = wanted("S2") || wanted("S3") || wanted("S4");
      servers.prestart(
          peers || wanted("S5"), peers, stateMap.backupCount(), stateMap.format().name());
    }
    long started = System.nanoTime();
    List<Double> loads = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.ScheduledExecutorService sampler =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "load-average");
              t.setDaemon(true);
              return t;
            });
    sampler.scheduleAtFixedRate(
        () -> loads.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()),
        0,
        5,
        TimeUnit.SECONDS);
    if (wanted("S1")) {
      report.scenario(embedded());
      gridModes();
    }
    if (wanted("S2")) {
      report.scenario(client());
    }
    if (wanted("S3")) {
      report.scenario(hotKey());
    }
    if (wanted("S4")) {
      report.scenario(attack());
    }
    if (wanted("S5")) {
      report.scenario(rest());
    }
    if (wanted("S6")) {
      memory();
    }
    targets();
    sampler.shutdownNow();
    loads.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    double[] sorted = loads.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    header(started, sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
    report.write(settings.doc(), settings.images());
    System.out.println("wrote " + settings.doc() + " and plots in " + settings.images());
  }

  /** Every Sluice contender that did not run, with its reason. */
  List<String> sluiceNotRun() {
    List<String> lines = new ArrayList<>();
    for (ScenarioResult s : report.scenarios()) {
      for (ContenderRun r : s.runs()) {
        if (ScenarioResult.isSluice(r) && !r.ran()) {
          lines.add(s.id() + " " + r.name() + ": " + r.notRunReason());
        }
      }
    }
    report.memoryRows().stream()
        .filter(m -> m.store().startsWith("Sluice") && !m.ran())
        .forEach(m -> lines.add("S6 " + m.store() + ": " + m.notRunReason()));
    return lines;
  }

  private boolean wanted(String id) {
    return only.isEmpty() || only.contains(id);
  }

  private Workload workload(int threads, KeySpace keys) {
    return new Workload(
        threads, keys, settings.warmup(), settings.round(), settings.rounds(), MAX_OPS_PER_ROUND);
  }

  // ---- scenarios -------------------------------------------------------------------------

  private ScenarioResult embedded() {
    Workload load = workload(8, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S1",
            "Embedded: Sluice member vs Bucket4j member",
            "8 threads in the application JVM, each a synchronous decision on an embedded member"
                + " (one member per contender, alone in its cluster, same config), "
                + load.keys().description()
                + ", rule `bench` = sliding_window "
                + BENCH_LIMIT
                + "/s (Bucket4j: greedy refill "
                + BENCH_LIMIT
                + "/s), so decisions admit.");
    measure(
        s,
        load,
        List.of(
            named(
                "Sluice embedded",
                () ->
                    SluiceContenders.embedded(
                        "Sluice embedded",
                        "bench-" + UUID.randomUUID(),
                        ManagedProcess.freePort())),
            named(
                "Bucket4j embedded",
                () ->
                    Bucket4jContender.embedded(
                        "Bucket4j embedded",
                        "bench-b4j-" + UUID.randomUUID(),
                        ManagedProcess.freePort(),
                        stateMap.backupCount(),
                        stateMap.format(),
                        BENCH_LIMIT,
                        BENCH_WINDOW))));
    return s;
  }

  /**
   * The grid's own benchmark ({@code dev.sluice.bench.grid.GridBenchmark}, issue 3) measures more
   * modes of the embedded comparison (direct, batched, async with 128 in flight, 64-key batches,
   * Bucket4j sync and async). run.sh runs it in the full run; its table goes in as it printed it.
   */
  private void gridModes() throws java.io.IOException {
    if (gridOutput == null) {
      if (!settings.quick()) {
        report.extra("S1", "S1b (the grid benchmark's modes) was not run: no `--grid-output`.\n");
      }
      return;
    }
    StringBuilder md =
        new StringBuilder(
            "#### S1b Embedded, every mode: the grid benchmark's own table\n\n"
                + "`dev.sluice.bench.grid.GridBenchmark --only=BINARY` (issue 3's benchmark, run by"
                + " run.sh in the same run; one member holds both Sluice's and Bucket4j's map, 8"
                + " threads, 10k keys, limit 1,000/s; async modes keep 16 calls in flight per"
                + " thread; median of its rounds):\n\n");
    List<String> lines =
        java.nio.file.Files.exists(gridOutput)
            ? java.nio.file.Files.readAllLines(gridOutput)
            : List.of();
    List<String> table =
        lines.stream().filter(line -> line.startsWith("|") && !line.contains("(skipped)")).toList();
    if (table.isEmpty()) {
      md.append("not run: GridBenchmark printed no table (see ").append(gridOutput).append(")\n");
    } else {
      table.forEach(line -> md.append(line).append("\n"));
    }
    report.extra("S1", md.toString());
  }

  private ScenarioResult client() {
    Workload load = workload(16, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S2",
            "Client: Sluice client vs Bucket4j client vs Redis + Lua",
            "16 threads in the load JVM, each a synchronous decision through a client to a server in"
                + " its own process on 127.0.0.1 (Sluice: `sluice-node.jar`; Bucket4j: a member"
                + " configured like it; Redis: redis-server with the Lua sliding window via"
                + " Lettuce), "
                + load.keys().description()
                + ", rule `bench` (sliding_window "
                + BENCH_LIMIT
                + "/s).");
    measure(s, load, clientContenders("bench", BENCH_LIMIT, false));
    return s;
  }

  private ScenarioResult hotKey() {
    Workload load = workload(16, KeySpace.hot("hot"));
    ScenarioResult s =
        new ScenarioResult(
            "S3",
            "Hot key: all 16 threads on one key",
            "As S2, but every call is for the same key; rule `bench` ("
                + BENCH_LIMIT
                + "/s, more than any contender reaches, so this measures the admitting path on one"
                + " partition). Bucket4j is also run with its own batching optimization, its"
                + " counterpart to Sluice's per-key coalescing; the target compares with the better"
                + " Bucket4j mode.");
    measure(s, load, clientContenders("bench", BENCH_LIMIT, true));
    return s;
  }

  private ScenarioResult attack() {
    Workload load = workload(16, KeySpace.hot("attacker"));
    ScenarioResult s =
        new ScenarioResult(
            "S4",
            "Attack: one key at 10 req/s hammered by 16 threads",
            "Rule `attack` = sliding_window "
                + ATTACK_LIMIT
                + "/s; 16 threads call as fast as they can for one key, so nearly every call is a"
                + " denial. Sluice's client answers repeat denials from its denied-until cache"
                + " (no network hop); the peers ask the server every time.");
    measure(s, load, clientContenders("attack", ATTACK_LIMIT, false));
    return s;
  }

  private List<Named> clientContenders(String rule, long limit, boolean withBatching) {
    List<Named> contenders = new ArrayList<>();
    contenders.add(
        named(
            "Sluice client",
            () -> {
              Servers.Node node = servers.node();
              return SluiceContenders.client(
                  "Sluice client", node.clusterName(), node.memberPort(), rule);
            }));
    if (Boolean.getBoolean("bench.diagnostics")) {
      // -Dbench.diagnostics=true: Sluice's client without per-key coalescing, to see what the
      // coalescer costs or gains. Not in the targets; the published run leaves it out.
      contenders.add(
          named(
              "Sluice client (no coalescing)",
              () -> {
                Servers.Node node = servers.node();
                return SluiceContenders.client(
                    "Sluice client (no coalescing)",
                    node.clusterName(),
                    node.memberPort(),
                    rule,
                    false);
              }));
    }
    contenders.add(
        named(
            "Bucket4j client",
            () -> {
              Servers.Bucket4jMember member =
                  servers.bucket4j(stateMap.backupCount(), stateMap.format().name());
              return Bucket4jContender.client(
                  "Bucket4j client",
                  member.clusterName(),
                  member.port(),
                  limit,
                  BENCH_WINDOW,
                  false);
            }));
    if (withBatching) {
      contenders.add(
          named(
              "Bucket4j client (batching)",
              () -> {
                Servers.Bucket4jMember member =
                    servers.bucket4j(stateMap.backupCount(), stateMap.format().name());
                return Bucket4jContender.client(
                    "Bucket4j client (batching)",
                    member.clusterName(),
                    member.port(),
                    limit,
                    BENCH_WINDOW,
                    true);
              }));
    }
    contenders.add(
        named(
            "Redis + Lua",
            () ->
                new RedisSlidingWindow("Redis + Lua", servers.redis(), rule, limit, BENCH_WINDOW)));
    return contenders;
  }

  private ScenarioResult rest() {
    Workload load = workload(16, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S5",
            "REST: POST /v1/check on a grid node vs the HTTP ceiling",
            "The Java HTTP load generator (`java.net.http.HttpClient`, HTTP/1.1, 16 threads = 16"
                + " connections) posts `{\"rule\":\"bench\",\"key\":...,\"cost\":1}` to a grid node"
                + " (`sluice-node.jar`, its own JVM) and to a bare Javalin endpoint in its own JVM"
                + " that does no work and answers with the exact body and RateLimit headers the"
                + " node sent for the same request (the ceiling). "
                + load.keys().description()
                + ". wrk is not used so that both sides always run under the same generator.");
    AtomicReference<String> bodyNote = new AtomicReference<>();
    measure(
        s,
        load,
        List.of(
            named(
                "Sluice REST (grid node)",
                () ->
                    new HttpCheckContender(
                        "Sluice REST (grid node)",
                        servers.node().restPort(),
                        "bench",
                        load.keys())),
            named(
                "HTTP ceiling (bare Javalin)",
                () -> {
                  Servers.Ceiling ceiling = ceiling(bodyNote);
                  return new HttpCheckContender(
                      "HTTP ceiling (bare Javalin)", ceiling.port(), "bench", load.keys());
                })));
    if (bodyNote.get() != null) {
      s.note(bodyNote.get());
    }
    return s;
  }

  /**
   * The ceiling, answering with one real answer of the grid node (body and RateLimit headers); if
   * the node cannot run, with a body of the same fields built from DESIGN §4, and the note says so.
   */
  private Servers.Ceiling ceiling(AtomicReference<String> note) throws Exception {
    byte[] body;
    Map<String, List<String>> headers;
    try {
      int port = servers.node().restPort();
      HttpResponse<byte[]> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpCheckContender.request(
                      URI.create("http://127.0.0.1:" + port + "/v1/check"), "bench", "template"),
                  HttpResponse.BodyHandlers.ofByteArray());
      body = answer.body();
      headers = answer.headers().map();
      note.set(
          "Both answer with the same "
              + body.length
              + "-byte JSON body and the same RateLimit headers.");
    } catch (Servers.NotRunException e) {
      body =
          ("{\"allowed\":true,\"limit\":"
                  + BENCH_LIMIT
                  + ",\"remaining\":"
                  + (BENCH_LIMIT - 1)
                  + ",\"resetAfterMs\":1,\"retryAfterMs\":0,\"rule\":\"bench\",\"shadow\":false}")
              .getBytes(StandardCharsets.UTF_8);
      headers = Map.of();
      note.set(
          "The grid node did not run, so the ceiling answers a "
              + body.length
              + "-byte body with DESIGN §4's fields instead of a copy of the node's answer.");
    }
    return servers.ceiling(body, headers);
  }

  private void memory() {
    int keys = settings.memoryKeys();
    if (settings.quick()) {
      report.memoryNote(
          "Quick mode fills "
              + String.format(Locale.ROOT, "%,d", keys)
              + " keys, not 1M: fixed overheads weigh more per key, so these figures are only a"
              + " smoke test. The full run uses 1,000,000 keys.");
    }
    report.memoryNote(
        "Every key is a live sliding_window state (rule window 1 min, so none expires while"
            + " measured). One member, so there are no backup copies; with backup count 1 a cluster"
            + " holds each entry twice.");
    try {
      SluiceContenders.memory(keys).forEach(report::memory);
    } catch (RuntimeException | LinkageError e) {
      report.memory(MemoryRow.notRun("Sluice (LocalMapStats)", reason(e)));
    }
    try {
      report.memory(redisMemory(keys));
    } catch (RuntimeException e) {
      report.memory(MemoryRow.notRun("Redis + Lua (INFO memory delta)", reason(e)));
    }
  }

  private MemoryRow redisMemory(int keys) throws RuntimeException {
    RedisServer redis = servers.redis();
    try (RedisSlidingWindow lua =
        new RedisSlidingWindow("Redis + Lua", redis, "mem", 1_000, Duration.ofMinutes(1))) {
      lua.connection().sync().flushall();
      long before = RedisServer.usedMemory(lua.connection());
      Semaphore inFlight = new Semaphore(1_000);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int i = 0; i < keys && failure.get() == null; i++) {
        inFlight.acquireUninterruptibly();
        lua.decideAsync("m" + i)
            .whenComplete(
                (answer, error) -> {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                  }
                  inFlight.release();
                });
      }
      if (!inFlight.tryAcquire(1_000, 60, TimeUnit.SECONDS) || failure.get() != null) {
        throw new IllegalStateException("filling Redis failed: " + failure.get());
      }
      long after = RedisServer.usedMemory(lua.connection());
      long stored = lua.connection().sync().dbsize();
      if (stored != keys) {
        throw new IllegalStateException("Redis holds " + stored + " keys, expected " + keys);
      }
      MemoryRow row =
          new MemoryRow(
              "Redis " + RedisServer.version(lua.connection()) + " + Lua",
              keys,
              (after - before) / (double) keys,
              "`INFO memory` used_memory after minus before, over the key count (a hash of 3"
                  + " integer fields with a TTL)",
              null);
      lua.connection().sync().flushall();
      return row;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }

  // ---- measuring -------------------------------------------------------------------------

  /** A contender's name and how to create it (creating may fail: then it is "not run"). */
  record Named(String name, ContenderFactory factory) {}

  interface ContenderFactory {
    Contender create() throws Exception;
  }

  private static Named named(String name, ContenderFactory factory) {
    return new Named(name, factory);
  }

  /**
   * Creates every contender, warms each up, then interleaves the measured rounds and closes them
   * all. A contender that cannot be created, or whose every call fails, is reported as not run.
   */
  private void measure(ScenarioResult s, Workload load, List<Named> named) {
    long startNanos = System.nanoTime();
    System.out.println("== " + s.id() + " " + s.title());
    List<Contender> live = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (Named n : named) {
      try {
        live.add(n.factory().create());
        reasons.add(null);
      } catch (Exception | LinkageError e) {
        live.add(null);
        reasons.add(reason(e));
      }
    }
    try {
      List<List<RoundResult>> rounds = new ArrayList<>();
      for (Contender c : live) {
        rounds.add(new ArrayList<>());
        if (c != null) {
          LoadDriver.round(c, load, load.warmup(), load.maxOpsPerRound());
        }
      }
      for (int r = 0; r < load.rounds(); r++) {
        for (int i = 0; i < live.size(); i++) {
          Contender c = live.get(i);
          if (c != null) {
            rounds
                .get(i)
                .add(LoadDriver.round(c, load, load.roundDuration(), load.maxOpsPerRound()));
          }
        }
      }
      for (int i = 0; i < named.size(); i++) {
        ContenderRun run =
            reasons.get(i) != null
                ? ContenderRun.notRun(named.get(i).name(), reasons.get(i))
                : ContenderRun.measured(named.get(i).name(), rounds.get(i));
        if (run.ran() && run.errorShare() > 0.5) {
          run = ContenderRun.notRun(run.name(), "most calls failed: " + run.firstError());
        }
        s.add(run);
        System.out.println("   " + run);
      }
      System.out.printf(
          Locale.ROOT, "   (%s took %.1f s)%n", s.id(), (System.nanoTime() - startNanos) / 1e9);
    } finally {
      for (Contender c : live) {
        if (c != null) {
          try {
            c.close();
          } catch (RuntimeException e) {
            System.err.println("closing " + c.name() + ": " + e);
          }
        }
      }
    }
  }

  private static String reason(Throwable e) {
    String message = e.getMessage();
    if (e instanceof NoClassDefFoundError) {
      return "class " + message + " missing (that piece has not landed)";
    }
    return message == null ? e.getClass().getSimpleName() : message.replace('\n', ' ');
  }

  // ---- targets and header ----------------------------------------------------------------

  private void targets() {
    Optional<ScenarioResult> s1 = scenario("S1");
    Optional<ScenarioResult> s2 = scenario("S2");
    Optional<ScenarioResult> s3 = scenario("S3");
    Optional<ScenarioResult> s4 = scenario("S4");
    Optional<ScenarioResult> s5 = scenario("S5");
    report.target(
        ratioTarget(
            "P1",
            "embedded ≥ 2× Bucket4j",
            s1,
            "Sluice embedded",
            List.of("Bucket4j embedded"),
            2.0,
            Double.NaN));
    report.target(
        ratioTarget(
            "P2",
            "client ≥ 2× Bucket4j client, p99 no worse",
            s2,
            "Sluice client",
            List.of("Bucket4j client"),
            2.0,
            1.0));
    report.target(
        ratioTarget(
            "P3",
            "client ≥ 1.5× Redis + Lua",
            s2,
            "Sluice client",
            List.of("Redis + Lua"),
            1.5,
            Double.NaN));
    report.target(
        ratioTarget(
            "P4",
            "REST ≥ 60 % of the ceiling, p99 ≤ 2× its p99",
            s5,
            "Sluice REST (grid node)",
            List.of("HTTP ceiling (bare Javalin)"),
            0.6,
            2.0));
    report.target(localTarget(s4));
    report.target(
        ratioTarget(
            "P6",
            "hot key ≥ 5× Bucket4j (its better mode)",
            s3,
            "Sluice client",
            List.of("Bucket4j client", "Bucket4j client (batching)"),
            5.0,
            Double.NaN));
    report.target(memoryTarget());
  }

  private Optional<ScenarioResult> scenario(String id) {
    return report.scenarios().stream().filter(s -> s.id().equals(id)).findFirst();
  }

  /**
   * Sluice's median throughput over the best of {@code peers}, against {@code minRatio}; and, when
   * {@code maxP99Ratio} is a number, Sluice's p99 over that peer's p99 against it.
   */
  static TargetRow ratioTarget(
      String id,
      String target,
      Optional<ScenarioResult> scenario,
      String sluiceName,
      List<String> peers,
      double minRatio,
      double maxP99Ratio) {
    if (scenario.isEmpty()) {
      return new TargetRow(id, target, "", "not run: scenario skipped");
    }
    Optional<ContenderRun> sluice = scenario.get().run(sluiceName);
    Optional<ContenderRun> peer =
        peers.stream()
            .map(name -> scenario.get().run(name))
            .flatMap(Optional::stream)
            .max((a, b) -> Double.compare(a.medianThroughput(), b.medianThroughput()));
    if (sluice.isEmpty() || peer.isEmpty()) {
      String missing = sluice.isEmpty() ? sluiceName : String.join(" / ", peers);
      return new TargetRow(id, target, "", "not run: " + missing + " did not run");
    }
    double ratio = sluice.get().medianThroughput() / peer.get().medianThroughput();
    double p99Ratio =
        sluice.get().medianPercentileMicros(99)
            / Math.max(0.001, peer.get().medianPercentileMicros(99));
    StringBuilder measured =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%.2f× %s (%,.0f vs %,.0f /s)",
                ratio,
                peer.get().name(),
                sluice.get().medianThroughput(),
                peer.get().medianThroughput()));
    List<String> misses = new ArrayList<>();
    if (ratio < minRatio) {
      misses.add(
          String.format(
              Locale.ROOT,
              "throughput %.2f× is %.0f %% short of %.2f×",
              ratio,
              100 * (1 - ratio / minRatio),
              minRatio));
    }
    if (!Double.isNaN(maxP99Ratio)) {
      measured.append(
          String.format(
              Locale.ROOT,
              "; p99 %.2f× (%.0f vs %.0f µs)",
              p99Ratio,
              sluice.get().medianPercentileMicros(99),
              peer.get().medianPercentileMicros(99)));
      if (p99Ratio > maxP99Ratio) {
        misses.add(String.format(Locale.ROOT, "p99 %.2f× is above %.2f×", p99Ratio, maxP99Ratio));
      }
    }
    return new TargetRow(
        id,
        target,
        measured.toString(),
        misses.isEmpty() ? "met" : "**MISSED**: " + String.join("; ", misses));
  }

  private static TargetRow localTarget(Optional<ScenarioResult> s4) {
    String target = "attack path ≥ 99 % answered locally";
    Optional<ContenderRun> sluice = s4.flatMap(s -> s.run("Sluice client"));
    if (sluice.isEmpty()) {
      return new TargetRow("P5", target, "", "not run: Sluice client did not run");
    }
    double share = sluice.get().localShare();
    return new TargetRow(
        "P5",
        target,
        String.format(Locale.ROOT, "%.2f %% local", share * 100),
        share >= 0.99
            ? "met"
            : String.format(Locale.ROOT, "**MISSED** by %.2f points", (0.99 - share) * 100));
  }

  private TargetRow memoryTarget() {
    String target = "bytes per key ≤ Redis's and ≤ 128 B";
    Optional<MemoryRow> sluice =
        report.memoryRows().stream()
            .filter(m -> m.ran() && m.store().startsWith("Sluice"))
            .findFirst();
    Optional<MemoryRow> redis =
        report.memoryRows().stream()
            .filter(m -> m.ran() && m.store().startsWith("Redis"))
            .findFirst();
    if (sluice.isEmpty()) {
      return new TargetRow("P7", target, "", "not run: Sluice memory not measured");
    }
    double b = sluice.get().bytesPerKey();
    List<String> misses = new ArrayList<>();
    String measured = String.format(Locale.ROOT, "%.0f B", b);
    if (redis.isPresent()) {
      measured += String.format(Locale.ROOT, " vs Redis %.0f B", redis.get().bytesPerKey());
      if (b > redis.get().bytesPerKey()) {
        misses.add(
            String.format(
                Locale.ROOT, "%.0f %% above Redis", 100 * (b / redis.get().bytesPerKey() - 1)));
      }
    } else {
      misses.add("Redis not measured");
    }
    if (b > 128) {
      misses.add(String.format(Locale.ROOT, "%.0f B over 128 B", b - 128));
    }
    if (settings.quick()) {
      measured +=
          " (quick mode, " + String.format(Locale.ROOT, "%,d", sluice.get().keys()) + " keys)";
    }
    return new TargetRow(
        "P7",
        target,
        measured,
        misses.isEmpty() ? "met" : "**MISSED**: " + String.join("; ", misses));
  }

  private void header(long startedNanos, double loadMin, double loadMedian, double loadMax) {
    String date =
        ZonedDateTime.now(ZoneOffset.UTC)
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    report.header(
        settings.quick()
            ? "**Quick mode** (the CI smoke run): "
                + settings.rounds()
                + " rounds of "
                + settings.round().toMillis()
                + " ms after a "
                + settings.warmup().toMillis()
                + " ms warm-up per contender, and the server JVMs boot in the background during S1."
                + " These figures only show the harness works; the published figures come from the"
                + " full run."
            : "**Full run**: per contender a "
                + settings.warmup().toSeconds()
                + " s warm-up, then "
                + settings.rounds()
                + " measured rounds of "
                + settings.round().toSeconds()
                + " s, interleaved across contenders; tables show the median round and the spread"
                + " (min..max).");
    int cores = Runtime.getRuntime().availableProcessors();
    if (loadMedian > cores) {
      report.header("");
      report.header(
          String.format(
              Locale.ROOT,
              "**This machine was busy with other work during the run** (1-minute load average"
                  + " %.0f to %.0f, median %.0f, on %d cores): every contender got a fraction of the CPUs, so absolute"
                  + " figures are low and latencies long. Ratios from the same run are more"
                  + " robust, but a path with more thread hand-offs (a client, HTTP) loses more"
                  + " to scheduling delay than a short one. Rerun on a quiet machine before"
                  + " quoting any figure.",
              loadMin,
              loadMax,
              loadMedian,
              cores));
    }
    report.header("");
    report.header("- Command: `" + settings.command() + "`");
    report.header(
        "- Date: "
            + date
            + String.format(
                Locale.ROOT, " (run took %.0f s)", (System.nanoTime() - startedNanos) / 1e9));
    report.header(
        String.format(
            Locale.ROOT,
            "- Machine: %d cores (load average sampled every 5 s: min %.1f, median %.1f, max %.1f),"
                + " %s %s, %s %s",
            Runtime.getRuntime().availableProcessors(),
            loadMin,
            loadMedian,
            loadMax,
            System.getProperty("os.name"),
            System.getProperty("os.arch"),
            System.getProperty("java.vm.name"),
            System.getProperty("java.runtime.version")));
    report.header(
        "- Versions: Hazelcast "
            + Versions.of("hazelcast")
            + ", Bucket4j "
            + Versions.of("bucket4j_jdk17-core")
            + ", Lettuce "
            + Versions.of("lettuce-core")
            + ", Javalin "
            + Versions.of("javalin")
            + ", HdrHistogram "
            + Versions.of("HdrHistogram"));
    report.header(
        "- Server JVMs (grid node, Bucket4j member, ceiling): `"
            + String.join(" ", BenchMembers.SERVER_JVM_FLAGS)
            + "`; load JVM: `"
            + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
            + "`");
    report.header(
        "- State map: backup count "
            + stateMap.backupCount()
            + ", in-memory format "
            + stateMap.format()
            + " ("
            + stateMap.source()
            + "); Bucket4j's map uses the same, 271"
            + " partitions on both.");
    report.header(
        "- Load: closed loop (each thread calls again as soon as it has its answer), keys"
            + " drawn with seeds "
            + LoadDriver.SEED
            + "+thread, the same sequence for every contender."
            + " Latency is per call on the calling thread (service time; a closed loop hides queueing"
            + " delay that an open-loop generator would show).");
  }
}
