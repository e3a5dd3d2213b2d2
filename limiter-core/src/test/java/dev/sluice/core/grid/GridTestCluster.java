package dev.sluice.core.grid;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.test.TestHazelcastFactory;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.ManualTimeSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Members in one JVM over Hazelcast's in-memory network, all reading one manual clock. Each test
 * gets its own cluster name, so concurrent test runs never meet.
 */
final class GridTestCluster implements AutoCloseable {
  final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
  final TestHazelcastFactory factory = new TestHazelcastFactory();
  final List<HazelcastInstance> members = new ArrayList<>();
  final List<GridRateLimiter> limiters = new ArrayList<>();
  private final String clusterName = "test-" + UUID.randomUUID();
  private final InMemoryFormat format;
  private final boolean wallClockTtl;

  GridTestCluster() {
    this(SluiceHazelcast.DEFAULT_STATE_FORMAT, false);
  }

  GridTestCluster(InMemoryFormat format, boolean wallClockTtl) {
    this.format = format;
    this.wallClockTtl = wallClockTtl;
  }

  /**
   * Members whose state entries outlive any test: the manual clock may run ahead of the wall clock,
   * and an entry expiring in wall time would hand its key a fresh budget mid-test.
   */
  static GridTestCluster start(int members) {
    return start(new GridTestCluster(), members);
  }

  /** Members with the production TTL floor, for the test of TTL cleanup itself. */
  static GridTestCluster startWithWallClockTtl(int members) {
    return start(new GridTestCluster(SluiceHazelcast.DEFAULT_STATE_FORMAT, true), members);
  }

  private static GridTestCluster start(GridTestCluster cluster, int members) {
    for (int i = 0; i < members; i++) {
      cluster.addMember();
    }
    return cluster;
  }

  Config memberConfig() {
    Config config = new Config().setClusterName(clusterName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    // Expire idle keys promptly in the TTL test (the default sweep runs every 5 s over 10 %).
    config.setProperty("hazelcast.internal.map.expiration.task.period.seconds", "1");
    config.setProperty("hazelcast.internal.map.expiration.cleanup.percentage", "100");
    if (!wallClockTtl) {
      config.setProperty(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY, "3600000");
    }
    return SluiceHazelcast.configure(config, clock, format);
  }

  HazelcastInstance newClient() {
    ClientConfig config = new ClientConfig().setClusterName(clusterName);
    return factory.newHazelcastClient(SluiceHazelcast.configure(config));
  }

  HazelcastInstance addMember() {
    HazelcastInstance member = factory.newHazelcastInstance(memberConfig());
    members.add(member);
    return member;
  }

  GridRateLimiter limiter(HazelcastInstance member, GridRateLimiter.Options options) {
    GridRateLimiter limiter = new GridRateLimiter(member, options);
    limiters.add(limiter);
    return limiter;
  }

  GridRateLimiter limiter(int member) {
    return limiter(members.get(member), GridRateLimiter.Options.defaults());
  }

  /**
   * Waits (at most 60 s) until the members have placed every partition's replicas: until then the
   * map statistics skip partitions without a backup replica, and backup counts read low.
   */
  GridTestCluster awaitSafe() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!members.get(0).getPartitionService().isClusterSafe()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cluster did not become safe within 60 s");
      }
      Thread.sleep(20);
    }
    return this;
  }

  /**
   * Sends a batch of 20 fresh keys under {@code rule} (limit 2 or more) through {@code limiter}'s
   * batchers and, from the batch's callback, decides the first key again synchronously: a callback
   * left on a Hazelcast partition or network thread fails or hangs there.
   */
  static Decision decideAgainFromBatchCallback(GridRateLimiter limiter, String rule)
      throws Exception {
    List<Check> checks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      checks.add(Check.of(rule, "callback-" + i));
    }
    return limiter
        .tryAcquireAllAsync(checks)
        .thenApply(decisions -> limiter.tryAcquire(rule, "callback-0", 1))
        .get(30, TimeUnit.SECONDS);
  }

  /** Backup entries of the state map, summed over the members. */
  long backupEntries() {
    long total = 0;
    for (HazelcastInstance member : members) {
      total += member.getMap(SluiceHazelcast.STATE_MAP).getLocalMapStats().getBackupEntryCount();
    }
    return total;
  }

  @Override
  public void close() {
    limiters.forEach(GridRateLimiter::close);
    factory.terminateAll();
  }
}
