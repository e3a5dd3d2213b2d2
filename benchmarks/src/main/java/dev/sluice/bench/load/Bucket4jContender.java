package dev.sluice.bench.load;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Bucket4j peer ({@code com.bucket4j:bucket4j_jdk17-hazelcast}): its entry-processor-based
 * proxy manager over an {@link IMap}, on an embedded member or through a Hazelcast client.
 *
 * <p>Set up the way Bucket4j's documentation recommends, never tuned down: its own Hazelcast
 * serializers (no Java serialization), a greedy-refill bandwidth of {@code limit} per {@code
 * window}, an expire-after-write TTL like Sluice's, and one {@link BucketProxy} per key, built once
 * and reused. {@code batching} adds Bucket4j's own request-batching optimization, its counterpart
 * to Sluice's per-key coalescing, for the hot-key scenario.
 */
public final class Bucket4jContender implements Contender {
  private final String name;
  private final HazelcastInstance instance;
  private final RemoteBucketBuilder<String> builder;
  private final BucketConfiguration configuration;
  private final Map<String, BucketProxy> buckets = new ConcurrentHashMap<>();

  private Bucket4jContender(
      String name, HazelcastInstance instance, long limit, Duration window, boolean batching) {
    this.name = name;
    this.instance = instance;
    IMap<String, byte[]> map = instance.getMap(BenchMembers.BUCKET4J_MAP);
    HazelcastProxyManager<String> proxyManager =
        Bucket4jHazelcast.entryProcessorBasedBuilder(map)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(window))
            .build();
    RemoteBucketBuilder<String> remote = proxyManager.builder();
    this.builder = batching ? remote.withOptimization(Optimizations.batching()) : remote;
    this.configuration =
        BucketConfiguration.builder()
            .addLimit(bandwidth -> bandwidth.capacity(limit).refillGreedy(limit, window))
            .build();
  }

  /** Bucket4j on a member started in this JVM, configured like Sluice's. */
  public static Bucket4jContender embedded(
      String name,
      String clusterName,
      int port,
      int backupCount,
      InMemoryFormat format,
      long limit,
      Duration window) {
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(
            BenchMembers.bucket4jMember(clusterName, port, backupCount, format));
    return new Bucket4jContender(name, member, limit, window, false);
  }

  /** Bucket4j through a Hazelcast client of the member at 127.0.0.1:{@code port}. */
  public static Bucket4jContender client(
      String name, String clusterName, int port, long limit, Duration window, boolean batching) {
    HazelcastInstance client =
        HazelcastClient.newHazelcastClient(BenchMembers.bucket4jClient(clusterName, port));
    return new Bucket4jContender(name, client, limit, window, batching);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Outcome decide(String key) {
    BucketProxy bucket =
        buckets.computeIfAbsent(key, k -> builder.build("bench|" + k, () -> configuration));
    return bucket.tryConsume(1) ? Outcome.ALLOWED : Outcome.DENIED;
  }

  public HazelcastInstance instance() {
    return instance;
  }

  @Override
  public void close() {
    instance.shutdown();
  }
}
