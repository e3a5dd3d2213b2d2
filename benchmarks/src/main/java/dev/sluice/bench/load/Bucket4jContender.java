package dev.sluice.bench.load;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Bucket4j peer ({@code com.bucket4j:bucket4j_jdk17-hazelcast}): its entry-processor-based
 * proxy manager over an {@link IMap}, on an embedded member or through a Hazelcast client, with or
 * without one of its client-side optimizations ({@link Mode}).
 *
 * <p>Set up the way Bucket4j's documentation recommends, never tuned down: its own Hazelcast
 * serializers (no Java serialization), a bandwidth of capacity {@code L} refilled greedily at
 * {@code L} per {@code W} for the rule's limit {@code L} per window {@code W}, an
 * expire-after-write TTL like Sluice's, and one {@link BucketProxy} per key, built once and reused
 * (an optimization works only on a reused proxy). Its keys are {@code <rule>|<contender id>|<key>},
 * so that two contenders on the same member never share a bucket.
 *
 * <p><b>Holders.</b> A proxy with an optimization keeps state of its own: {@code delaying} answers
 * from a local copy of the bucket and sends what it consumed at the next synchronization. One
 * application instance holds one proxy per key; {@code holders > 1} gives each key that many
 * independent proxies, load thread {@code t} using proxy {@code t mod holders}, to model that many
 * application instances sharing the grid (over one Hazelcast client here, which only the proxies'
 * state, not the network path, needs).
 */
public final class Bucket4jContender implements Contender {

  /** Bucket4j's client-side optimizations ({@code Optimizations}, Bucket4j 8.x). */
  public enum Mode {
    /** Every call is one entry-processor invocation. */
    PLAIN(""),
    /**
     * {@code Optimizations.batching()}: calls for one proxy that meet while one is in flight go as
     * one batch; exact.
     */
    BATCHING("batching"),
    /**
     * {@code Optimizations.delaying(new DelayParameters(max(1, L/20), W/20))}: answers from a local
     * copy of the bucket and synchronizes after 5 % of the window's limit was consumed locally or 5
     * % of the window has passed. Several holders each spend from their own copy, so it
     * over-admits.
     */
    DELAYING("delaying");

    private final String label;

    Mode(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final String name;
  private final HazelcastInstance instance;
  private final boolean ownsInstance;
  private final BenchRule rule;
  private final String keyPrefix;
  private final List<RemoteBucketBuilder<String>> builders;
  private final BucketConfiguration configuration;
  private final Map<String, AtomicReferenceArray<BucketProxy>> buckets = new ConcurrentHashMap<>();
  private final AtomicInteger nextHolder = new AtomicInteger();
  private final ThreadLocal<Integer> holder;

  private Bucket4jContender(
      String name,
      HazelcastInstance instance,
      boolean ownsInstance,
      BenchRule rule,
      Mode mode,
      int holders) {
    if (holders < 1) {
      throw new IllegalArgumentException("holders must be at least 1, was " + holders);
    }
    this.name = name;
    this.instance = instance;
    this.ownsInstance = ownsInstance;
    this.rule = rule;
    this.keyPrefix = rule.name() + "|" + ContenderKeys.prefix();
    IMap<String, byte[]> map = instance.getMap(BenchMembers.BUCKET4J_MAP);
    HazelcastProxyManager<String> proxyManager =
        Bucket4jHazelcast.entryProcessorBasedBuilder(map)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(rule.window()))
            .build();
    List<RemoteBucketBuilder<String>> perHolder = new ArrayList<>();
    for (int i = 0; i < holders; i++) {
      RemoteBucketBuilder<String> remote = proxyManager.builder();
      perHolder.add(
          switch (mode) {
            case PLAIN -> remote;
            case BATCHING -> remote.withOptimization(Optimizations.batching());
            case DELAYING -> remote.withOptimization(Optimizations.delaying(delay(rule)));
          });
    }
    this.builders = List.copyOf(perHolder);
    this.holder =
        ThreadLocal.withInitial(() -> Math.floorMod(nextHolder.getAndIncrement(), holders));
    long limit = rule.limit();
    Duration window = rule.window();
    this.configuration =
        BucketConfiguration.builder()
            .addLimit(bandwidth -> bandwidth.capacity(limit).refillGreedy(limit, window))
            .build();
  }

  /** The delaying optimization's parameters for {@code rule}: 5 % of its limit and window. */
  static DelayParameters delay(BenchRule rule) {
    return new DelayParameters(Math.max(1, rule.limit() / 20), rule.window().dividedBy(20));
  }

  /** The delaying parameters in words, for the report. */
  static String describeDelay(BenchRule rule) {
    DelayParameters p = delay(rule);
    return String.format(
        Locale.ROOT,
        "`DelayParameters(%,d, %d ms)`",
        p.maxUnsynchronizedTokens,
        p.maxUnsynchronizedTimeoutNanos / 1_000_000);
  }

  /** Bucket4j on a member started in this JVM, configured like Sluice's. */
  public static Bucket4jContender embedded(
      String name,
      String clusterName,
      int port,
      int backupCount,
      InMemoryFormat format,
      BenchRule rule) {
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(
            BenchMembers.bucket4jMember(clusterName, port, backupCount, format));
    return new Bucket4jContender(name, member, true, rule, Mode.PLAIN, 1);
  }

  /**
   * Bucket4j through {@code client}, a Hazelcast client of the Bucket4j member that the run shares
   * (the contender does not shut it down).
   */
  public static Bucket4jContender client(
      String name, HazelcastInstance client, BenchRule rule, Mode mode, int holders) {
    return new Bucket4jContender(name, client, false, rule, mode, holders);
  }

  @Override
  public String name() {
    return name;
  }

  /** Capacity {@code L} refilled greedily at {@code L} per {@code W}: Sluice's token_bucket. */
  @Override
  public Optional<Policy> enforced() {
    return Optional.of(
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(rule.limit())
            .window(rule.window())
            .burst(rule.limit())
            .build());
  }

  @Override
  public Outcome decide(String key) {
    AtomicReferenceArray<BucketProxy> proxies =
        buckets.computeIfAbsent(key, k -> new AtomicReferenceArray<>(builders.size()));
    int h = builders.size() == 1 ? 0 : holder.get();
    BucketProxy bucket = proxies.get(h);
    if (bucket == null) {
      // Two threads of one holder may both build one; the loser's is dropped before its first
      // call (a proxy holds no state until it is called), so each holder has one proxy per key.
      BucketProxy built = builders.get(h).build(keyPrefix + key, () -> configuration);
      bucket = proxies.compareAndSet(h, null, built) ? built : proxies.get(h);
    }
    return bucket.tryConsume(1) ? Outcome.ALLOWED : Outcome.DENIED;
  }

  public HazelcastInstance instance() {
    return instance;
  }

  @Override
  public void close() {
    if (ownsInstance) {
      instance.shutdown();
    }
  }
}
