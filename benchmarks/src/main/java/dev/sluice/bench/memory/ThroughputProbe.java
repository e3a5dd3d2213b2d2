package dev.sluice.bench.memory;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.bench.Usage;
import dev.sluice.bench.load.BenchMembers;
import dev.sluice.bench.load.ManagedProcess;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.Sluice;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.wire.GridNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * What the candidates cost in decisions per second: every mode on the same members in the same JVM,
 * each with its own map pre-filled with the same keys, then rounds of synchronous calls on
 * uniformly random keys of that map (every call an admitted decision on an existing state), the
 * modes interleaved round by round so that outside load hits them alike. Reports the median round
 * and the ratio to today's storage on the same path.
 *
 * <p>Modes: {@code sluice} (the real path, {@code GridRateLimiter.tryAcquire}), {@code today} (the
 * candidate processor with today's key, value and TTL: the baseline for the candidates, which share
 * its code path), {@code sweep} (a), {@code compact} ((a)+(c)+(d), OBJECT), {@code bucket64} (e).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -B -q -DskipTests package}; five maps of
 * 10^6 keys need a 3 GB heap):
 *
 * <pre>
 * java -Xms3g -Xmx3g &lt;the other JVM flags of MemoryProbe&gt; \
 *   -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.memory.ThroughputProbe [--members=1|2] [--keys=1000000] [--threads=8] \
 *   [--seconds=10] [--rounds=3] [--only=sluice,today,...]
 * </pre>
 */
public final class ThroughputProbe {
  static final String USAGE =
      """
      java -Xms3g -Xmx3g <the other JVM flags of MemoryProbe> \\
        -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.memory.ThroughputProbe [--members=1|2] [--keys=1000000] [--threads=8] \\
        [--seconds=10] [--rounds=3] [--only=sluice,today,...]
      """;

  private ThroughputProbe() {}

  /** A way to decide one key, and the map it fills. */
  interface Mode {
    String name();

    boolean decide(int i);
  }

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    int members = 1;
    int keys = 1_000_000;
    int threads = 8;
    int seconds = 10;
    int rounds = 3;
    List<String> only = List.of("sluice", "today", "sweep", "compact", "bucket64");
    for (String arg : args) {
      String value = arg.substring(arg.indexOf('=') + 1);
      if (arg.startsWith("--members=")) {
        members = Integer.parseInt(value);
      } else if (arg.startsWith("--keys=")) {
        keys = Integer.parseInt(value);
      } else if (arg.startsWith("--threads=")) {
        threads = Integer.parseInt(value);
      } else if (arg.startsWith("--seconds=")) {
        seconds = Integer.parseInt(value);
      } else if (arg.startsWith("--rounds=")) {
        rounds = Integer.parseInt(value);
      } else if (arg.startsWith("--only=")) {
        only = Arrays.asList(value.split(","));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    String cluster = "tp-" + UUID.randomUUID();
    int port = ManagedProcess.freePort();
    List<HazelcastInstance> instances = new ArrayList<>();
    try {
      for (int m = 0; m < members; m++) {
        instances.add(Hazelcast.newHazelcastInstance(config(cluster, port)));
      }
      HazelcastInstance member = instances.get(0);
      while (member.getCluster().getMembers().size() < members
          || !member.getPartitionService().isClusterSafe()) {
        Thread.sleep(100);
      }
      int buckets = Integer.highestOneBit(Math.max(1, keys / 64 - 1)) << 1;
      List<Mode> modes = new ArrayList<>();
      for (String name : only) {
        modes.add(mode(name, member, buckets));
      }
      System.out.printf(
          Locale.ROOT,
          "ThroughputProbe: %d member(s), %,d keys per mode, %d threads, %d rounds of %d s, %d"
              + " CPUs%n",
          members,
          keys,
          threads,
          rounds,
          seconds,
          Runtime.getRuntime().availableProcessors());
      for (Mode mode : modes) {
        long start = System.nanoTime();
        run(mode, keys, threads, Long.MAX_VALUE, true);
        System.out.printf(
            Locale.ROOT, "filled %s in %.1f s%n", mode.name(), (System.nanoTime() - start) / 1e9);
      }
      Map<String, List<double[]>> results = new LinkedHashMap<>();
      for (int round = 0; round <= rounds; round++) {
        for (Mode mode : modes) {
          double[] r = run(mode, keys, threads, seconds * 1_000_000_000L, false);
          if (round > 0) { // round 0 warms up every mode
            results.computeIfAbsent(mode.name(), k -> new ArrayList<>()).add(r);
          }
          System.out.printf(
              Locale.ROOT,
              "round %d %-10s %,10.0f/s  p50 %6.1f us  p99 %7.1f us%n",
              round,
              mode.name(),
              r[0],
              r[1],
              r[2]);
        }
      }
      double baseline = median(results.getOrDefault("today", List.of()), 0);
      System.out.println();
      System.out.println("| mode | decisions/s (median round) | p50 µs | p99 µs | × today |");
      System.out.println("|---|---:|---:|---:|---:|");
      for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
        double rate = median(e.getValue(), 0);
        System.out.printf(
            Locale.ROOT,
            "| %s | %,.0f | %.1f | %.1f | %s |%n",
            e.getKey(),
            rate,
            median(e.getValue(), 1),
            median(e.getValue(), 2),
            baseline > 0 ? String.format(Locale.ROOT, "%.2f", rate / baseline) : "");
      }
    } finally {
      for (HazelcastInstance instance : instances) {
        instance.getLifecycleService().terminate();
      }
    }
    System.exit(0);
  }

  private static Config config(String cluster, int port) {
    Config config = BenchMembers.member(cluster, port);
    SluiceHazelcast.configure(config, TimeSource.system());
    BenchSerialization.configure(config.getSerializationConfig());
    MapConfig state = config.getMapConfig(GridNames.STATE_MAP);
    for (String name : List.of("today", "sweep", "compact", "bucket64")) {
      MapConfig map = new MapConfig(state).setName("tp." + name);
      if (name.equals("compact") || name.equals("bucket64")) {
        map.setInMemoryFormat(InMemoryFormat.OBJECT);
      }
      config.addMapConfig(map);
    }
    return config;
  }

  private static Mode mode(String name, HazelcastInstance member, int buckets) {
    IMap<Object, Object> map = member.getMap("tp." + name);
    return switch (name) {
      case "sluice" -> {
        RateLimiter limiter = Sluice.of(member).limiter();
        limiter.rules().put(new Rule(MemoryProbe.RULE, MemoryProbe.POLICY));
        yield mode(
            name, i -> limiter.tryAcquire(MemoryProbe.RULE, MemoryProbe.subject(i)).allowed());
      }
      case "today" ->
          mode(
              name,
              i ->
                  map.executeOnKey(
                      KeyCodec.STRING.key(MemoryProbe.RULE, 1, MemoryProbe.subject(i)),
                      new CandidateProcessor(StateCodec.GRIDSTATE, true)));
      case "sweep" ->
          mode(
              name,
              i ->
                  map.executeOnKey(
                      KeyCodec.STRING.key(MemoryProbe.RULE, 1, MemoryProbe.subject(i)),
                      new CandidateProcessor(StateCodec.GRIDSTATE, false)));
      case "compact" ->
          mode(
              name,
              i ->
                  map.executeOnKey(
                      KeyCodec.COMPACT.key(MemoryProbe.RULE, 1, MemoryProbe.subject(i)),
                      new CandidateProcessor(StateCodec.BYTES, false)));
      case "bucket64" ->
          mode(
              name,
              i -> {
                byte[] subject = MemoryProbe.subject(i).getBytes(StandardCharsets.UTF_8);
                return map.executeOnKey(
                    BucketProcessor.bucketOf(1, subject, buckets),
                    new BucketProcessor(1, subject, false));
              });
      default -> throw new IllegalArgumentException("unknown mode " + name);
    };
  }

  private static Mode mode(String name, java.util.function.IntPredicate decide) {
    return new Mode() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public boolean decide(int i) {
        return decide.test(i);
      }
    };
  }

  /**
   * Calls {@code mode} from {@code threads} threads: each key once in order ({@code fill}), or
   * random keys for {@code nanos}. Returns {decisions/s, p50 µs, p99 µs}.
   */
  private static double[] run(Mode mode, int keys, int threads, long nanos, boolean fill)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicInteger next =
        new java.util.concurrent.atomic.AtomicInteger();
    long[] counts = new long[threads];
    Histogram[] latencies = new Histogram[threads];
    List<Thread> workers = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int id = t;
      latencies[t] = new Histogram(3_600_000_000L, 2);
      Thread worker =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(id * 7919L + System.nanoTime());
                try {
                  while (!stop.get() && failure.get() == null) {
                    int key;
                    if (fill) {
                      key = next.getAndIncrement();
                      if (key >= keys) {
                        return;
                      }
                    } else {
                      key = random.nextInt(keys);
                    }
                    long t0 = System.nanoTime();
                    if (!mode.decide(key)) {
                      throw new IllegalStateException(mode.name() + " denied key " + key);
                    }
                    latencies[id].recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
                    counts[id]++;
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "tp-" + t);
      worker.start();
      workers.add(worker);
    }
    if (!fill) {
      Thread.sleep(nanos / 1_000_000);
      stop.set(true);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    long elapsed = System.nanoTime() - start;
    if (failure.get() != null) {
      throw new IllegalStateException(mode.name() + " failed", failure.get());
    }
    Histogram all = new Histogram(3_600_000_000L, 2);
    long total = 0;
    for (int t = 0; t < threads; t++) {
      all.add(latencies[t]);
      total += counts[t];
    }
    return new double[] {
      total / (elapsed / 1e9), all.getValueAtPercentile(50), all.getValueAtPercentile(99)
    };
  }

  private static double median(List<double[]> rounds, int index) {
    if (rounds.isEmpty()) {
      return 0;
    }
    double[] values = rounds.stream().mapToDouble(r -> r[index]).sorted().toArray();
    return values[values.length / 2];
  }
}
