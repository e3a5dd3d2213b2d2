package dev.sluice.bench.memory;

import com.hazelcast.config.CacheDeserializedValues;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import dev.sluice.bench.Usage;
import dev.sluice.bench.load.BenchMembers;
import dev.sluice.bench.load.ManagedProcess;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.grid.Sluice;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.wire.GridNames;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Heap bytes per active sliding_window key, like for like: fills 1,000,000 keys into one store on
 * one or two embedded members in this JVM and measures the heap it grew by after a full GC, both as
 * used heap ({@code MemoryMXBean}, after three {@code System.gc()}) and as a live class histogram
 * ({@code GC.class_histogram}) diff, which it attributes to the parts of an entry ({@link
 * Breakdown}). With two members (backup count 1) the JVM holds every entry twice, so the figure is
 * owner plus backup.
 *
 * <p>Stores ({@code <store>}, first argument):
 *
 * <ul>
 *   <li>{@code sluice}: the real path, {@code GridRateLimiter.tryAcquire("mem", "m<i>")} on members
 *       configured by {@code SluiceHazelcast} (rule {@code mem}: 1,000 per 10 minutes, so no state
 *       expires while measured; keys {@code mem|m0} to {@code mem|m999999}). Options change the
 *       state map's config after Sluice set it: {@code --format=OBJECT}, {@code --per-entry-stats},
 *       {@code --cache-values=ALWAYS}, {@code --eviction=LRU}.
 *   <li>{@code candidate}: {@link CandidateProcessor}, one key per entry, same keys, with {@code
 *       --key=string|compact|hash64}, {@code --value=gridstate|tight|bytes}, {@code --ttl} (the
 *       default) or {@code --sweep} (no TTL), and the same config options.
 *   <li>{@code bucket}: {@link BucketProcessor}, many keys per entry, {@code --bucket-keys=64} keys
 *       per bucket on average (buckets = keys / that, rounded up to a power of two).
 *   <li>{@code bucket4j}: Bucket4j's entry-processor proxy on the same keys, 1,000 per 10 minutes
 *       greedy refill, expire-after-write as in the load harness.
 *   <li>{@code redis}: see {@link RedisMemory}.
 * </ul>
 *
 * Other options: {@code --members=1|2}, {@code --keys=N}, {@code --threads=4}, {@code --sweep-cost}
 * (after measuring: one sweep of every partition with every key live, then one at a {@code now}
 * past every state's freshness, with CPU time, wall time and the heap afterwards), {@code
 * --idle-cpu=S} (process CPU over S idle seconds with the keys in place: the TTL expiry task's
 * background cost).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -B -q -DskipTests package}; the JVM flags
 * are benchmarks/run.sh's):
 *
 * <pre>
 * java -Xms1g -Xmx2g -Dhazelcast.phone.home.enabled=false -Dhazelcast.logging.type=slf4j \
 *   -Dorg.slf4j.simpleLogger.defaultLogLevel=warn --add-modules=java.se \
 *   --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
 *   --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
 *   --add-opens=java.management/sun.management=ALL-UNNAMED \
 *   --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED \
 *   -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.memory.MemoryProbe sluice --members=1
 * </pre>
 *
 * {@link MemoryReport} runs every configuration of docs/memory.md this way, one JVM each.
 */
public final class MemoryProbe {
  static final String RULE = "mem";
  static final int RULE_ID = 1;

  /**
   * 1,000 per 10 minutes: no state may expire while a slow fill (two members over TCP take about
   * 100 s for 10^6 keys) and the measurement run, so the window is longer than the load harness's
   * one minute; the stored bytes are the same (the window start is a multiple of 10^9 ns either
   * way).
   */
  static final Policy POLICY = Policy.of(1_000, Duration.ofMinutes(10));

  static final LimiterAlgorithm ALGORITHM = LimiterAlgorithm.of(POLICY);
  static final long WINDOW_NANOS = POLICY.windowNanos();
  static final int FINGERPRINT = CompiledPolicy.fingerprint(POLICY);
  static final String CANDIDATE_MAP = "mem.candidate";

  /** The sweep's margin against clock differences between members, as the TTL's extra second. */
  static final long SWEEP_MARGIN_NANOS = 1_000_000_000L;

  static final String USAGE =
      """
      java -Xms1g -Xmx2g -Dhazelcast.phone.home.enabled=false -Dhazelcast.logging.type=slf4j \\
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn --add-modules=java.se \\
        --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \\
        --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \\
        --add-opens=java.management/sun.management=ALL-UNNAMED \\
        --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED \\
        -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.memory.MemoryProbe sluice --members=1
      """;

  private MemoryProbe() {}

  /** The probe's settings, from {@code --name=value} arguments. */
  record Options(
      String store,
      int members,
      int keys,
      int threads,
      InMemoryFormat format,
      boolean perEntryStats,
      CacheDeserializedValues cacheValues,
      EvictionPolicy eviction,
      KeyCodec keyCodec,
      StateCodec stateCodec,
      boolean ttl,
      int bucketKeys,
      boolean sweepCost,
      int idleCpuSeconds,
      boolean redisExpire) {

    static Options parse(String[] args) {
      if (args.length == 0 || args[0].startsWith("--")) {
        throw new IllegalArgumentException(
            "usage: MemoryProbe sluice|candidate|bucket|bucket4j|redis [--option=value ...]");
      }
      String store = args[0];
      int members = 1;
      int keys = 1_000_000;
      int threads = 4;
      InMemoryFormat format = SluiceHazelcast.DEFAULT_STATE_FORMAT;
      boolean perEntryStats = false;
      CacheDeserializedValues cacheValues = CacheDeserializedValues.NEVER;
      EvictionPolicy eviction = EvictionPolicy.NONE;
      KeyCodec keyCodec = KeyCodec.STRING;
      StateCodec stateCodec = StateCodec.GRIDSTATE;
      boolean ttl = true;
      int bucketKeys = 64;
      boolean sweepCost = false;
      int idleCpuSeconds = 0;
      boolean redisExpire = true;
      for (int i = 1; i < args.length; i++) {
        String arg = args[i];
        String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
        String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        switch (name) {
          case "--members" -> members = Integer.parseInt(value);
          case "--keys" -> keys = Integer.parseInt(value);
          case "--threads" -> threads = Integer.parseInt(value);
          case "--format" -> format = InMemoryFormat.valueOf(value.toUpperCase(Locale.ROOT));
          case "--per-entry-stats" -> perEntryStats = true;
          case "--cache-values" ->
              cacheValues = CacheDeserializedValues.valueOf(value.toUpperCase(Locale.ROOT));
          case "--eviction" -> eviction = EvictionPolicy.valueOf(value.toUpperCase(Locale.ROOT));
          case "--key" -> keyCodec = KeyCodec.valueOf(value.toUpperCase(Locale.ROOT));
          case "--value" -> stateCodec = StateCodec.valueOf(value.toUpperCase(Locale.ROOT));
          case "--ttl" -> ttl = true;
          case "--sweep" -> ttl = false;
          case "--bucket-keys" -> bucketKeys = Integer.parseInt(value);
          case "--sweep-cost" -> sweepCost = true;
          case "--idle-cpu" -> idleCpuSeconds = Integer.parseInt(value);
          case "--no-expire" -> redisExpire = false;
          default -> throw new IllegalArgumentException("unknown option " + arg);
        }
      }
      if (members < 1 || members > 2 || keys < 1 || threads < 1 || bucketKeys < 1) {
        throw new IllegalArgumentException("members 1 or 2, keys, threads, bucket keys >= 1");
      }
      return new Options(
          store,
          members,
          keys,
          threads,
          format,
          perEntryStats,
          cacheValues,
          eviction,
          keyCodec,
          stateCodec,
          ttl,
          bucketKeys,
          sweepCost,
          idleCpuSeconds,
          redisExpire);
    }

    int buckets() {
      int target = Math.max(1, (keys + bucketKeys - 1) / bucketKeys);
      int buckets = Integer.highestOneBit(target);
      return buckets == target ? buckets : buckets << 1;
    }

    String label() {
      StringBuilder label = new StringBuilder(store);
      switch (store) {
        case "candidate" ->
            label
                .append(" key=")
                .append(keyCodec.name().toLowerCase(Locale.ROOT))
                .append(" value=")
                .append(stateCodec.name().toLowerCase(Locale.ROOT))
                .append(ttl ? " ttl" : " sweep");
        case "bucket" ->
            label.append(" keys/bucket=").append(bucketKeys).append(ttl ? " ttl" : " sweep");
        case "redis" -> label.append(redisExpire ? " expire" : " no-expire");
        default -> {}
      }
      if (!store.equals("redis") && !store.equals("bucket4j")) {
        label.append(' ').append(format);
        if (perEntryStats) {
          label.append(" per-entry-stats");
        }
        if (cacheValues != CacheDeserializedValues.NEVER) {
          label.append(" cache-values=").append(cacheValues);
        }
        if (eviction != EvictionPolicy.NONE) {
          label.append(" eviction=").append(eviction);
        }
      }
      return label.toString();
    }
  }

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    Options options = Options.parse(args);
    System.out.printf(
        Locale.ROOT,
        "MemoryProbe %s, %d member(s), %,d keys, Java %s, %d CPUs, max heap %d MB%n",
        options.label(),
        options.members(),
        options.keys(),
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20);
    if (options.store().equals("redis")) {
      RedisMemory.run(options);
    } else {
      new GridRun(options).run();
    }
    System.exit(0);
  }

  /** One grid store on one or two members in this JVM. */
  private static final class GridRun {
    private final Options options;
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final String mapName;

    GridRun(Options options) {
      this.options = options;
      this.mapName =
          switch (options.store()) {
            case "sluice" -> GridNames.STATE_MAP;
            case "candidate", "bucket" -> CANDIDATE_MAP;
            case "bucket4j" -> BenchMembers.BUCKET4J_MAP;
            default -> throw new IllegalArgumentException("unknown store " + options.store());
          };
    }

    void run() throws Exception {
      String cluster = "mem-" + UUID.randomUUID();
      int port = ManagedProcess.freePort();
      for (int i = 0; i < options.members(); i++) {
        members.add(Hazelcast.newHazelcastInstance(config(cluster, port)));
      }
      try {
        awaitClusterSafe();
        HazelcastInstance first = members.get(0);
        Filler filler = filler(first);
        IMap<Object, Object> map = first.getMap(mapName);
        map.size(); // creates the map's proxy and partition containers before the baseline

        Path beforeFile = Files.createTempFile("memory-probe-before", ".txt");
        Files.writeString(beforeFile, ClassHistogram.takeText());
        long heapBefore = usedHeapAfterGc();
        long start = System.nanoTime();
        fill(filler);
        double fillSeconds = (System.nanoTime() - start) / 1e9;
        long entries = ownedEntries();
        long backups = backupEntries();
        long heapAfter = usedHeapAfterGc();
        ClassHistogram after = ClassHistogram.take();
        ClassHistogram before = ClassHistogram.parse(Files.readString(beforeFile));
        Files.delete(beforeFile);

        long expectedEntries = options.store().equals("bucket") ? entries : (long) options.keys();
        if (entries != expectedEntries || backups != (options.members() - 1) * entries) {
          throw new IllegalStateException(
              "stored "
                  + entries
                  + " owned and "
                  + backups
                  + " backup entries, expected "
                  + expectedEntries
                  + " owned");
        }
        long copies = options.members();
        Sizes sizes = sizes(first, map);
        Breakdown breakdown =
            new Breakdown(
                after.minus(before),
                options.keys(),
                entries * copies,
                sizes.keyArrays * copies,
                sizes.valueArrays * copies,
                options.store().equals("bucket4j") || options.format() == InMemoryFormat.BINARY,
                List.of(
                    "dev.sluice.core.grid.wire.StateValue$Packed",
                    "dev.sluice.core.grid.wire.StateValue$Wide",
                    "dev.sluice.core.decision.StoredState",
                    "[J",
                    "dev.sluice.bench.memory.TightState"));
        double heapPerKey = (heapAfter - heapBefore) / (double) options.keys();
        System.out.printf(
            Locale.ROOT,
            "filled %,d keys in %.1f s (%,.0f/s); %,d map entries owned, %,d backup entries%n",
            options.keys(),
            fillSeconds,
            options.keys() / fillSeconds,
            entries,
            backups);
        System.out.printf(
            Locale.ROOT,
            "used heap after GC: %,d -> %,d B, %.1f B per key; histogram %.1f B per key%n",
            heapBefore,
            heapAfter,
            heapPerKey,
            breakdown.totalPerKey());
        System.out.printf(
            Locale.ROOT,
            "computed per stored copy: key arrays %.1f B, value arrays %.1f B per key (%s)%n",
            sizes.keyArrays / (double) options.keys(),
            sizes.valueArrays / (double) options.keys(),
            sizes.note);
        if (options.store().equals("bucket")) {
          System.out.printf(
              Locale.ROOT,
              "buckets: %,d of %,d hold keys, %.1f keys per bucket%n",
              entries,
              options.buckets(),
              options.keys() / (double) entries);
        }
        System.out.println();
        System.out.print(breakdown.describe());
        System.out.printf(
            Locale.ROOT,
            "RESULT label=%s;members=%d;keys=%d;entries=%d;heapPerKey=%.1f;histPerKey=%.1f;%s"
                + "fillPerSecond=%.0f%n",
            options.label(),
            options.members(),
            options.keys(),
            entries,
            heapPerKey,
            breakdown.totalPerKey(),
            breakdown.compact(),
            options.keys() / fillSeconds);
        if (options.idleCpuSeconds() > 0) {
          idleCpu(options.idleCpuSeconds());
          // The same breakdown once the expiry task has had time to finish its passes: its
          // cached iterators hold on to tables the expiry maps have outgrown.
          Breakdown idle =
              new Breakdown(
                  ClassHistogram.take().minus(before),
                  options.keys(),
                  entries * copies,
                  sizes.keyArrays * copies,
                  sizes.valueArrays * copies,
                  breakdown.valueHeapData,
                  breakdown.valueClasses);
          System.out.printf(
              Locale.ROOT,
              "after idling: histogram %.1f B per key, of it expiry table slots %.1f B%n",
              idle.totalPerKey(),
              idle.perKey(Breakdown.EXPIRY_TABLE));
          System.out.printf(
              Locale.ROOT,
              "RESULT-AFTER-IDLE label=%s;members=%d;histPerKey=%.1f;%s%n",
              options.label(),
              options.members(),
              idle.totalPerKey(),
              idle.compact());
        }
        if (options.sweepCost()) {
          sweepCost(map, heapBefore);
        }
      } finally {
        for (HazelcastInstance member : members) {
          member.getLifecycleService().terminate();
        }
      }
    }

    private Config config(String cluster, int port) {
      Config config = BenchMembers.member(cluster, port);
      if (options.store().equals("bucket4j")) {
        config = BenchMembers.bucket4jMember(cluster, port, 1, InMemoryFormat.BINARY);
        // Expired entries are found the same way as Sluice's (every partition each round).
        config.setProperty("hazelcast.internal.map.expiration.cleanup.operation.count", "271");
        return config;
      }
      SluiceHazelcast.configure(config, TimeSource.system(), options.format());
      BenchSerialization.configure(config.getSerializationConfig());
      MapConfig map;
      if (options.store().equals("sluice")) {
        map = config.getMapConfig(GridNames.STATE_MAP);
      } else {
        map = new MapConfig(config.getMapConfig(GridNames.STATE_MAP)).setName(CANDIDATE_MAP);
        config.addMapConfig(map);
      }
      map.setInMemoryFormat(options.format());
      map.setPerEntryStatsEnabled(options.perEntryStats());
      map.setCacheDeserializedValues(options.cacheValues());
      if (options.eviction() != EvictionPolicy.NONE) {
        map.setEvictionConfig(
            new EvictionConfig()
                .setEvictionPolicy(options.eviction())
                .setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                .setSize(Integer.MAX_VALUE));
      }
      return config;
    }

    private void awaitClusterSafe() throws InterruptedException {
      for (int i = 0; i < 600; i++) {
        if (members.get(0).getCluster().getMembers().size() == options.members()
            && members.get(0).getPartitionService().isClusterSafe()) {
          return;
        }
        Thread.sleep(100);
      }
      throw new IllegalStateException("the cluster did not form within 60 s");
    }

    /** Decides one fresh key, which must be admitted. */
    interface Filler {
      boolean decide(int i);
    }

    private Filler filler(HazelcastInstance member) {
      switch (options.store()) {
        case "sluice" -> {
          RateLimiter limiter = Sluice.of(member).limiter();
          limiter.rules().put(new Rule(RULE, POLICY));
          return i -> limiter.tryAcquire(RULE, subject(i)).allowed();
        }
        case "candidate" -> {
          IMap<Object, Object> map = member.getMap(CANDIDATE_MAP);
          return i ->
              map.executeOnKey(
                  options.keyCodec().key(RULE, RULE_ID, subject(i)),
                  new CandidateProcessor(options.stateCodec(), options.ttl()));
        }
        case "bucket" -> {
          IMap<Object, Object> map = member.getMap(CANDIDATE_MAP);
          int buckets = options.buckets();
          return i -> {
            byte[] subject = subject(i).getBytes(StandardCharsets.UTF_8);
            return map.executeOnKey(
                BucketProcessor.bucketOf(RULE_ID, subject, buckets),
                new BucketProcessor(RULE_ID, subject, options.ttl()));
          };
        }
        case "bucket4j" -> {
          IMap<String, byte[]> map = member.getMap(BenchMembers.BUCKET4J_MAP);
          RemoteBucketBuilder<String> builder =
              Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                  .expirationAfterWrite(
                      ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                          POLICY.window()))
                  .build()
                  .builder();
          BucketConfiguration configuration =
              BucketConfiguration.builder()
                  .addLimit(b -> b.capacity(1_000).refillGreedy(1_000, POLICY.window()))
                  .build();
          // One proxy per call, not cached: a cache of a million proxies would be counted too.
          return i -> builder.build(RULE + '|' + subject(i), () -> configuration).tryConsume(1);
        }
        default -> throw new IllegalArgumentException("unknown store " + options.store());
      }
    }

    private void fill(Filler filler) throws InterruptedException {
      AtomicInteger next = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < options.threads(); t++) {
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (int i = next.getAndIncrement();
                        i < options.keys() && failure.get() == null;
                        i = next.getAndIncrement()) {
                      if (!filler.decide(i)) {
                        throw new IllegalStateException("a fresh key was denied: " + subject(i));
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "fill-" + t);
        thread.start();
        threads.add(thread);
      }
      for (Thread thread : threads) {
        thread.join();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("filling failed", failure.get());
      }
    }

    private long ownedEntries() {
      long owned = 0;
      for (HazelcastInstance member : members) {
        owned += member.getMap(mapName).getLocalMapStats().getOwnedEntryCount();
      }
      return owned;
    }

    private long backupEntries() {
      long backups = 0;
      for (HazelcastInstance member : members) {
        LocalMapStats stats = member.getMap(mapName).getLocalMapStats();
        backups += stats.getBackupEntryCount();
      }
      return backups;
    }

    /** Computed payload-array bytes of one copy of every stored key and value. */
    record Sizes(long keyArrays, long valueArrays, String note) {}

    private Sizes sizes(HazelcastInstance member, IMap<Object, Object> map) {
      SerializationService ss = ((SerializationServiceSupport) member).getSerializationService();
      boolean binary =
          options.store().equals("bucket4j") || options.format() == InMemoryFormat.BINARY;
      if (options.store().equals("bucket")) {
        long keyArrays = 0;
        long valueArrays = 0;
        long stored = 0;
        Set<Object> bucketKeys = new HashSet<>(map.keySet());
        for (Object key : bucketKeys) {
          Object table = map.get(key);
          keyArrays += Breakdown.align8(16 + ss.toData(key).totalSize());
          valueArrays += valueArray(ss, table, binary);
          stored += BucketTable.count((byte[]) table);
        }
        if (stored != options.keys()) {
          throw new IllegalStateException("the buckets hold " + stored + " keys");
        }
        return new Sizes(keyArrays, valueArrays, "every bucket's key and table");
      }
      long keyArrays = 0;
      for (int i = 0; i < options.keys(); i++) {
        keyArrays += Breakdown.align8(16 + ss.toData(storedKey(i)).totalSize());
      }
      int samples = Math.min(options.keys(), 1_000);
      long sampled = 0;
      for (int s = 0; s < samples; s++) {
        sampled += valueArray(ss, map.get(storedKey(s * (options.keys() / samples))), binary);
      }
      long valueArrays = Math.round(sampled / (double) samples * options.keys());
      return new Sizes(
          keyArrays, valueArrays, "every key; values from " + samples + " evenly spread samples");
    }

    private Object storedKey(int i) {
      return switch (options.store()) {
        case "candidate" -> options.keyCodec().key(RULE, RULE_ID, subject(i));
        default -> RULE + '|' + subject(i);
      };
    }

    private static long valueArray(SerializationService ss, Object value, boolean binary) {
      if (value == null) {
        throw new IllegalStateException("a stored value is missing");
      }
      if (binary) {
        return Breakdown.align8(16 + ss.toData(value).totalSize());
      }
      if (value instanceof byte[] bytes) {
        return Breakdown.align8(16 + bytes.length);
      }
      return 0; // an object value: its classes are counted as the value's own
    }

    private void idleCpu(int seconds) throws InterruptedException {
      long cpu = processCpuNanos();
      Thread.sleep(seconds * 1_000L);
      double cpuSeconds = (processCpuNanos() - cpu) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "idle with the keys in place: %.2f s process CPU over %d s (%.1f ms per second)%n",
          cpuSeconds,
          seconds,
          cpuSeconds * 1_000 / seconds);
      System.out.printf(
          Locale.ROOT,
          "RESULT-IDLE label=%s;members=%d;cpuMsPerSecond=%.1f%n",
          options.label(),
          options.members(),
          cpuSeconds * 1_000 / seconds);
    }

    /**
     * Candidate (a)'s cost: one sweep with every key live (everything is looked at, nothing
     * removed), then one at a {@code now} past every state's freshness (everything removed, on
     * owners and backups), each as CPU time of the whole process and wall time.
     */
    private void sweepCost(IMap<Object, Object> map, long heapBaseline) throws Exception {
      StateCodec codec =
          options.store().equals("sluice") ? StateCodec.GRIDSTATE : options.stateCodec();
      boolean buckets = options.store().equals("bucket");
      List<Sweeper> sweepers = new ArrayList<>();
      for (HazelcastInstance member : members) {
        sweepers.add(new Sweeper(member, mapName));
      }
      long idleStart = processCpuNanos();
      Thread.sleep(3_000);
      double idleCpuPerNano = (processCpuNanos() - idleStart) / 3e9;
      long now = TimeSource.system().nowNanos() - SWEEP_MARGIN_NANOS;
      long later = now + 2 * WINDOW_NANOS + 2 * SWEEP_MARGIN_NANOS;
      for (long at : new long[] {now, later}) {
        long entriesBefore = ownedEntries();
        long cpu = processCpuNanos();
        long wall = System.nanoTime();
        int swept = 0;
        for (Sweeper sweeper : sweepers) {
          swept += sweeper.sweepOwned(at, codec, buckets);
        }
        long wallNanos = System.nanoTime() - wall;
        double cpuSeconds = (processCpuNanos() - cpu - idleCpuPerNano * wallNanos) / 1e9;
        long entriesAfter = ownedEntries();
        long backupsAfter = backupEntries();
        Thread.sleep(2_000);
        long backupsLater = backupEntries();
        System.out.printf(
            Locale.ROOT,
            "  backup entries right after the sweep %,d, 2 s later %,d%n",
            backupsAfter,
            backupsLater);
        System.out.printf(
            Locale.ROOT,
            "sweep at %s: %d partitions, %,d -> %,d owned entries (%,d backups left), wall %.2f s,"
                + " CPU %.2f s (idle rate subtracted) = %.2f s per 10^6 keys%n",
            at == now ? "now - 1 s (all live)" : "now + 2W + 1 s (all fresh)",
            swept,
            entriesBefore,
            entriesAfter,
            backupEntries(),
            wallNanos / 1e9,
            cpuSeconds,
            cpuSeconds * 1e6 / options.keys());
        System.out.printf(
            Locale.ROOT,
            "RESULT-SWEEP label=%s;members=%d;phase=%s;removed=%d;wallSeconds=%.2f;cpuSeconds=%.2f%n",
            options.label(),
            options.members(),
            at == now ? "live" : "fresh",
            entriesBefore - entriesAfter,
            wallNanos / 1e9,
            cpuSeconds);
      }
      long heapAfter = usedHeapAfterGc();
      System.out.printf(
          Locale.ROOT,
          "after the sweeps: map size %,d, used heap %,d B (%+.1f B per key against before"
              + " filling)%n",
          map.size(),
          heapAfter,
          (heapAfter - heapBaseline) / (double) options.keys());
    }
  }

  static String subject(int i) {
    return "m" + i;
  }

  static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
