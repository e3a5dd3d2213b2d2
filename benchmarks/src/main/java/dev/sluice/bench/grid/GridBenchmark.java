package dev.sluice.bench.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.bench.Usage;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.grid.wire.GridNames;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Sluice embedded against Bucket4j's Hazelcast backend, side by side in one run, on one member with
 * the same config: 10,000 keys drawn uniformly, 8 caller threads, every decision allowed-or-denied
 * by the grid (limits are set so both mostly allow, so both do the same write work).
 *
 * <p>Leases are off in every mode: this benchmark measures the way to the key's owner (the load
 * harness measures leases). Bucket4j's modes, the hot-key modes and, with {@code --public-api},
 * every Sluice mode through the public-API transport (what the internal one buys, docs/grid.md) run
 * beside the member in Sluice's default state format ({@link
 * SluiceHazelcast#DEFAULT_STATE_FORMAT}): select it with {@code --only=OBJECT} to keep the ratios.
 *
 * <p>Modes: synchronous calls (Sluice direct {@code executeOnKey}, Sluice batched, Bucket4j), and
 * asynchronous calls with {@value #IN_FLIGHT_PER_THREAD} in flight per thread (128 in all). Latency
 * is from call to answer, in microseconds.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.grid.GridBenchmark [--quick] [--memory] [--keys=1000000] [--public-api] \
 *   [--only=TEXT]
 * </pre>
 *
 * {@code --quick} runs each mode for a second (a smoke run for CI); {@code --memory} measures bytes
 * per active sliding_window key from {@code LocalMapStats} in BINARY and OBJECT formats.
 */
public final class GridBenchmark {
  private static final int KEYS = 10_000;
  private static final int THREADS = 8;
  private static final int IN_FLIGHT_PER_THREAD = 16;
  private static final int HOT_KEYS = 16;

  /** {@code --only=TEXT} runs only the modes whose name contains TEXT. */
  private static String ONLY = "";

  /** {@code --public-api}: also every Sluice mode through the public-API transport. */
  private static boolean PUBLIC_API = false;

  private final Duration warmup;
  private final Duration measure;

  private final int rounds;

  private GridBenchmark(boolean quick) {
    this.warmup = quick ? Duration.ofMillis(300) : Duration.ofSeconds(2);
    this.measure = quick ? Duration.ofMillis(700) : Duration.ofSeconds(5);
    this.rounds = quick ? 1 : 3;
  }

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.grid.GridBenchmark [--quick] [--memory] [--keys=1000000] [--public-api] \\
        [--only=TEXT]
      """;

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    boolean quick = false;
    boolean memory = false;
    int memoryKeys = 1_000_000;
    for (String arg : args) {
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.equals("--memory")) {
        memory = true;
      } else if (arg.equals("--public-api")) {
        PUBLIC_API = true;
      } else if (arg.startsWith("--only=")) {
        ONLY = arg.substring("--only=".length());
      } else if (arg.startsWith("--keys=")) {
        memoryKeys = Integer.parseInt(arg.substring("--keys=".length()));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "cpus=%d java=%s%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    if (memory) {
      for (InMemoryFormat format : List.of(InMemoryFormat.BINARY, InMemoryFormat.OBJECT)) {
        measureMemory(format, memoryKeys);
      }
      return;
    }
    new GridBenchmark(quick).compare();
  }

  static Config memberConfig(InMemoryFormat format) {
    Config config = new Config().setClusterName("bench-" + UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true).setPortCount(100);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    SluiceHazelcast.configure(config, TimeSource.system(), format);
    HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(), 10_000);
    // Bucket4j's map gets the state map's settings that bear on speed and memory.
    MapConfig state = config.getMapConfig(GridNames.STATE_MAP);
    config
        .getMapConfig("bucket4j.state")
        .setBackupCount(state.getBackupCount())
        .setInMemoryFormat(state.getInMemoryFormat())
        .setCacheDeserializedValues(state.getCacheDeserializedValues());
    return config;
  }

  /** One result row. */
  record Row(String name, double perSecond, double p50Micros, double p99Micros) {}

  /** A benchmark mode: runs once and reports a row. */
  private interface Mode {
    Row run() throws Exception;
  }

  /**
   * Starts one member per in-memory format (same config otherwise), then runs every mode in turn,
   * {@link #rounds} times, and reports each mode's median round: the machine is shared, so
   * interleaving spreads other load over all modes rather than over whichever ran then.
   */
  private void compare() throws Exception {
    List<AutoCloseable> resources = new ArrayList<>();
    Map<String, List<Row>> byMode = new LinkedHashMap<>();
    try {
      List<Mode> modes = new ArrayList<>();
      for (InMemoryFormat format : List.of(InMemoryFormat.BINARY, InMemoryFormat.OBJECT)) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(memberConfig(format));
        resources.add(member::shutdown);
        modes.addAll(modes(member, format, resources));
      }
      for (int round = 1; round <= rounds; round++) {
        System.out.printf(Locale.ROOT, "round %d of %d%n", round, rounds);
        for (Mode mode : modes) {
          Row row = mode.run();
          byMode.computeIfAbsent(row.name(), k -> new ArrayList<>()).add(row);
        }
      }
    } finally {
      for (int i = resources.size() - 1; i >= 0; i--) {
        resources.get(i).close();
      }
    }
    List<Row> medians = new ArrayList<>();
    for (List<Row> rows : byMode.values()) {
      rows.sort(Comparator.comparingDouble(Row::perSecond));
      medians.add(rows.get(rows.size() / 2));
    }
    print(medians);
  }

  private List<Mode> modes(
      HazelcastInstance member, InMemoryFormat format, List<AutoCloseable> resources) {
    List<Mode> modes = new ArrayList<>();
    String tag = " [" + format.name() + "]";
    Policy policy = Policy.of(1_000, Duration.ofSeconds(1));
    String[] keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "user-" + i;
    }

    // Leases off: these modes measure the path to the owner (the load harness measures leases).
    GridRateLimiter.Options options = GridRateLimiter.Options.defaults().withLeases(false);
    GridRateLimiter direct = new GridRateLimiter(member, options.withBatching(false));
    GridRateLimiter batched = new GridRateLimiter(member, options.withBatching(true));
    resources.add(direct);
    resources.add(batched);
    direct.rules().put(new Rule("bench", policy));
    modes.addAll(sluiceModes(direct, batched, keys, tag));

    if (format == SluiceHazelcast.DEFAULT_STATE_FORMAT) {
      if (PUBLIC_API) {
        modes.addAll(publicApiModes(member, options, keys, tag, resources));
      }
      IMap<String, byte[]> bucketMap = member.getMap("bucket4j.state");
      // An expire-after-write TTL like the one Sluice sets on every state write, so both pay for
      // Hazelcast's per-entry expiry bookkeeping (the load harness configures Bucket4j the same).
      HazelcastProxyManager<String> buckets =
          Bucket4jHazelcast.entryProcessorBasedBuilder(bucketMap)
              .expirationAfterWrite(
                  ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                      Duration.ofSeconds(1)))
              .build();
      BucketConfiguration configuration =
          BucketConfiguration.builder()
              .addLimit(limit -> limit.capacity(1_000).refillGreedy(1_000, Duration.ofSeconds(1)))
              .build();
      BucketProxy[] syncBuckets = new BucketProxy[KEYS];
      AsyncBucketProxy[] asyncBuckets = new AsyncBucketProxy[KEYS];
      for (int i = 0; i < KEYS; i++) {
        syncBuckets[i] = buckets.builder().build(keys[i], () -> configuration);
        asyncBuckets[i] =
            buckets
                .asAsync()
                .builder()
                .build(keys[i], () -> CompletableFuture.completedFuture(configuration));
      }
      // Hot keys: every call lands on one of HOT_KEYS keys, with limits high enough that all are
      // admitted. Here concurrent calls on a key collide, which is where per-key coalescing helps.
      direct.rules().put(new Rule("hot", Policy.of(1_000_000, Duration.ofSeconds(1))));
      BucketConfiguration hotConfiguration =
          BucketConfiguration.builder()
              .addLimit(
                  limit -> limit.capacity(1_000_000).refillGreedy(1_000_000, Duration.ofSeconds(1)))
              .build();
      AsyncBucketProxy[] hotBuckets = new AsyncBucketProxy[HOT_KEYS];
      for (int i = 0; i < HOT_KEYS; i++) {
        hotBuckets[i] =
            buckets
                .asAsync()
                .builder()
                .build("hot-" + keys[i], () -> CompletableFuture.completedFuture(hotConfiguration));
      }
      modes.addAll(hotKeyModes(direct, batched, keys, tag));
      modes.add(
          () ->
              async(
                  "bucket4j async, " + HOT_KEYS + " hot keys" + tag,
                  i -> hotBuckets[i % HOT_KEYS].tryConsume(1),
                  IN_FLIGHT_PER_THREAD,
                  1));
      modes.add(() -> sync("bucket4j sync" + tag, i -> syncBuckets[i].tryConsume(1)));
      modes.add(
          () ->
              async(
                  "bucket4j async" + tag,
                  i -> asyncBuckets[i].tryConsume(1),
                  IN_FLIGHT_PER_THREAD,
                  1));
    }
    return modes;
  }

  /**
   * Sluice's modes on {@link #KEYS} spread keys: synchronous and asynchronous calls, direct and
   * through the batchers, and batches of 64 checks.
   */
  private List<Mode> sluiceModes(
      GridRateLimiter direct, GridRateLimiter batched, String[] keys, String tag) {
    List<Mode> modes = new ArrayList<>();
    modes.add(() -> sync("sluice sync direct" + tag, i -> direct.tryAcquire("bench", keys[i])));
    modes.add(() -> sync("sluice sync batched" + tag, i -> batched.tryAcquire("bench", keys[i])));
    modes.add(
        () ->
            async(
                "sluice async direct" + tag,
                i -> direct.tryAcquireAsync("bench", keys[i], 1),
                IN_FLIGHT_PER_THREAD,
                1));
    modes.add(
        () ->
            async(
                "sluice async batched" + tag,
                i -> batched.tryAcquireAsync("bench", keys[i], 1),
                IN_FLIGHT_PER_THREAD,
                1));
    modes.add(
        () ->
            async(
                "sluice tryAcquireAll x64" + tag,
                i -> {
                  List<Check> checks = new ArrayList<>(64);
                  for (int j = 0; j < 64; j++) {
                    checks.add(Check.of("bench", keys[ThreadLocalRandom.current().nextInt(KEYS)]));
                  }
                  return batched.tryAcquireAllAsync(checks);
                },
                1,
                64));
    return modes;
  }

  /** Sluice's asynchronous modes on {@link #HOT_KEYS} keys, where concurrent calls collide. */
  private List<Mode> hotKeyModes(
      GridRateLimiter direct, GridRateLimiter batched, String[] keys, String tag) {
    return List.of(
        () ->
            async(
                "sluice async batched, " + HOT_KEYS + " hot keys" + tag,
                i -> batched.tryAcquireAsync("hot", keys[i % HOT_KEYS], 1),
                IN_FLIGHT_PER_THREAD,
                1),
        () ->
            async(
                "sluice async direct, " + HOT_KEYS + " hot keys" + tag,
                i -> direct.tryAcquireAsync("hot", keys[i % HOT_KEYS], 1),
                IN_FLIGHT_PER_THREAD,
                1));
  }

  /**
   * The same modes through {@link GridTransport.Kind#PUBLIC_API} (only {@code executeOnKey}, {@code
   * submitToKey} and {@code submitToKeys}), in the same run as the default internal transport: what
   * the Hazelcast internals in the transport package buy (docs/grid.md, "Transport").
   */
  private List<Mode> publicApiModes(
      HazelcastInstance member,
      GridRateLimiter.Options options,
      String[] keys,
      String tag,
      List<AutoCloseable> resources) {
    GridRateLimiter.Options publicApi = options.withTransport(GridTransport.Kind.PUBLIC_API);
    GridRateLimiter direct = new GridRateLimiter(member, publicApi.withBatching(false));
    GridRateLimiter batched = new GridRateLimiter(member, publicApi.withBatching(true));
    resources.add(direct);
    resources.add(batched);
    String publicTag = tag + " public API";
    List<Mode> modes = new ArrayList<>(sluiceModes(direct, batched, keys, publicTag));
    modes.addAll(hotKeyModes(direct, batched, keys, publicTag));
    return modes;
  }

  private interface SyncCall {
    Object call(int keyIndex);
  }

  private Row sync(String name, SyncCall call) throws InterruptedException {
    return run(
        name,
        (histogram, count, deadline) -> {
          ThreadLocalRandom random = ThreadLocalRandom.current();
          while (System.nanoTime() < deadline) {
            long start = System.nanoTime();
            call.call(random.nextInt(KEYS));
            histogram.recordValue((System.nanoTime() - start) / 1_000);
            count.increment();
          }
        });
  }

  /** {@code inFlightPerThread} calls per thread, each worth {@code decisionsPerCall} decisions. */
  private Row async(
      String name,
      IntFunction<CompletionStage<?>> call,
      int inFlightPerThread,
      int decisionsPerCall)
      throws InterruptedException {
    return run(
        name,
        (histogram, count, deadline) -> {
          Semaphore inFlight = new Semaphore(inFlightPerThread);
          ThreadLocalRandom random = ThreadLocalRandom.current();
          while (System.nanoTime() < deadline) {
            inFlight.acquire();
            long start = System.nanoTime();
            call.apply(random.nextInt(KEYS))
                .whenComplete(
                    (r, t) -> {
                      histogram.recordValue((System.nanoTime() - start) / 1_000);
                      count.add(decisionsPerCall);
                      inFlight.release();
                    });
          }
          inFlight.acquire(inFlightPerThread);
        });
  }

  private interface Load {
    void run(Histogram histogram, LongAdder count, long deadlineNanos) throws Exception;
  }

  /** Warms up, then measures {@link #THREADS} threads running {@code load} until the deadline. */
  private Row run(String name, Load load) throws InterruptedException {
    if (!name.contains(ONLY)) {
      return new Row(name + " (skipped)", Double.NaN, Double.NaN, Double.NaN);
    }
    phase(load, warmup);
    ConcurrentHistogram histogram = new ConcurrentHistogram(3);
    LongAdder count = new LongAdder();
    long elapsed = phase(load, measure, histogram, count);
    double perSecond = count.sum() * 1e9 / elapsed;
    Row row =
        new Row(
            name,
            perSecond,
            histogram.getValueAtPercentile(50),
            histogram.getValueAtPercentile(99));
    System.out.printf(
        Locale.ROOT,
        "%-34s %,12.0f decisions/s  p50 %,7.0f us  p99 %,7.0f us%n",
        row.name(),
        row.perSecond(),
        row.p50Micros(),
        row.p99Micros());
    return row;
  }

  private long phase(Load load, Duration duration) throws InterruptedException {
    return phase(load, duration, new ConcurrentHistogram(3), new LongAdder());
  }

  private long phase(Load load, Duration duration, Histogram histogram, LongAdder count)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + duration.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  load.run(histogram, count, deadline);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join(duration.toMillis() + TimeUnit.SECONDS.toMillis(30));
    }
    return System.nanoTime() - start;
  }

  private static void print(List<Row> rows) {
    double bucket4jSync =
        rows.stream()
            .filter(r -> r.name().startsWith("bucket4j sync"))
            .findFirst()
            .orElseThrow()
            .perSecond();
    double bucket4jBest =
        rows.stream()
            .filter(r -> r.name().startsWith("bucket4j") && !r.name().contains("hot"))
            .mapToDouble(Row::perSecond)
            .max()
            .orElseThrow();
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "| mode | decisions/s | p50 µs | p99 µs | × Bucket4j sync | × Bucket4j best |%n");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      if (Double.isNaN(row.perSecond())) {
        continue; // a mode --only left out
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %.0f | %.0f | %s | %s |%n",
          row.name(),
          row.perSecond(),
          row.p50Micros(),
          row.p99Micros(),
          ratio(row.perSecond(), bucket4jSync),
          ratio(row.perSecond(), bucket4jBest));
    }
  }

  /** {@code value / base}, or "n/a" where the base mode did not run (left out by --only). */
  private static String ratio(double value, double base) {
    return Double.isNaN(base) ? "n/a" : String.format(Locale.ROOT, "%.2f", value / base);
  }

  /** Fills the state map with {@code keys} active sliding_window keys and reads LocalMapStats. */
  private static void measureMemory(InMemoryFormat format, int keys) throws Exception {
    HazelcastInstance member = Hazelcast.newHazelcastInstance(memberConfig(format));
    try (GridRateLimiter limiter = new GridRateLimiter(member)) {
      limiter.rules().put(new Rule("mem", Policy.of(100, Duration.ofMinutes(10))));
      System.gc();
      long heapBefore = usedHeap();
      Semaphore inFlight = new Semaphore(1_024);
      for (int i = 0; i < keys; i++) {
        inFlight.acquire();
        limiter
            .tryAcquireAsync("mem", "user-" + i, 1)
            .whenComplete((Decision d, Throwable t) -> inFlight.release());
      }
      inFlight.acquire(1_024);
      System.gc();
      long heapAfter = usedHeap();
      IMap<String, ?> map = member.getMap(GridNames.STATE_MAP);
      LocalMapStats stats = map.getLocalMapStats();
      System.out.printf(
          Locale.ROOT,
          "memory %s: %,d keys, LocalMapStats owned cost %,d B = %.1f B/key;"
              + " heap delta %,d B = %.1f B/key (key \"mem|user-N\", 1 member, backups double it)%n",
          format,
          stats.getOwnedEntryCount(),
          stats.getOwnedEntryMemoryCost(),
          (double) stats.getOwnedEntryMemoryCost() / stats.getOwnedEntryCount(),
          heapAfter - heapBefore,
          (double) (heapAfter - heapBefore) / stats.getOwnedEntryCount());
    } finally {
      member.shutdown();
    }
  }

  private static long usedHeap() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
