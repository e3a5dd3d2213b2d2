package dev.sluice.core.grid;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.test.TestHazelcastFactory;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.ManualTimeSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

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

  @Override
  public void close() {
    limiters.forEach(GridRateLimiter::close);
    factory.terminateAll();
  }
}
