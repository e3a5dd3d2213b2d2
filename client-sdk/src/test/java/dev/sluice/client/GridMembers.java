package dev.sluice.client;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Real Sluice members over TCP on loopback, all reading one manual clock: what a client connects
 * to. Each cluster has a random name and a random port range, multicast off, so concurrent test
 * runs on this machine never meet.
 */
public final class GridMembers implements AutoCloseable {
  public final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
  public final String clusterName = "test-" + UUID.randomUUID();
  public final int basePort = 20_000 + ThreadLocalRandom.current().nextInt(400) * 100;
  final List<HazelcastInstance> members = new ArrayList<>();

  public GridMembers() {}

  /**
   * {@code count} members, returned once their partitions have settled: right after a join, a
   * decision on a moving partition waits Hazelcast's retry pause (500 ms), and one whose backup a
   * moving replica dropped waits the whole backup timeout (5 s) for an acknowledgement, longer than
   * a test's call timeout (the client's breaker then opens and its failure policy answers).
   */
  static GridMembers start(int count) {
    GridMembers grid = new GridMembers();
    for (int i = 0; i < count; i++) {
      grid.addMember();
    }
    grid.awaitSafe();
    return grid;
  }

  /** Waits (at most 30 s) until no partition is migrating and every backup is in sync. */
  void awaitSafe() {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!members.get(0).getPartitionService().isClusterSafe()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the members' partitions did not settle within 30 s");
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  Config memberConfig(int port, boolean autoIncrement) {
    Config config = rawMemberConfig(port, autoIncrement);
    // The members decide on a manual clock that runs ahead of wall time while entry TTLs run on
    // wall time: keep states an hour, or a slow machine expires one mid-test (a sliding_log key
    // then admitted 5 of 3 in SluiceClientContractTest, as GridTestCluster once saw).
    config.setProperty(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY, "3600000");
    return SluiceHazelcast.configure(config, clock);
  }

  /** This cluster's network settings, not yet configured for Sluice. */
  public Config rawMemberConfig(int port, boolean autoIncrement) {
    Config config = new Config().setClusterName(clusterName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.partition.count", "31");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(port).setPortAutoIncrement(autoIncrement).setPortCount(100);
    network.setReuseAddress(true); // a member coming back binds where the stopped one was
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true);
    for (int p = basePort; p < basePort + 4; p++) {
      join.getTcpIpConfig().addMember("127.0.0.1:" + p);
    }
    return config;
  }

  HazelcastInstance addMember() {
    HazelcastInstance member = Hazelcast.newHazelcastInstance(memberConfig(basePort, true));
    members.add(member);
    return member;
  }

  /** A member on exactly {@code port}, e.g. one coming back where a stopped one was. */
  HazelcastInstance addMemberAt(int port) {
    HazelcastInstance member = Hazelcast.newHazelcastInstance(memberConfig(port, false));
    members.add(member);
    return member;
  }

  public static int portOf(HazelcastInstance member) {
    return member.getCluster().getLocalMember().getAddress().getPort();
  }

  /** Member addresses for a client. */
  String[] addresses() {
    return members.stream().map(m -> "127.0.0.1:" + portOf(m)).toArray(String[]::new);
  }

  /** A client builder for this cluster whose local clock follows the members' manual clock. */
  SluiceClient.Builder client() {
    return SluiceClient.builder()
        .clusterName(clusterName)
        .addresses(addresses())
        .connectTimeout(Duration.ofSeconds(10))
        .nanoClock(clock::nowNanos);
  }

  @Override
  public void close() {
    for (HazelcastInstance member : members) {
      if (member.getLifecycleService().isRunning()) {
        member.getLifecycleService().terminate();
      }
    }
  }
}
