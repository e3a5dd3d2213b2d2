package dev.sluice.core.grid;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.test.TestHazelcastFactory;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.wire.GridNames;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Members in one JVM, all reading one manual clock, over Hazelcast's in-memory network or, where
 * the test is about the network's own threads, over real TCP on loopback ({@link #startOverTcp}).
 * Each cluster gets its own cluster name, so concurrent test runs never meet.
 */
public final class GridTestCluster implements AutoCloseable {
  /** Where a cluster's members look for each other over TCP: {@link #TCP_PORTS} ports from here. */
  private static final int TCP_BASE_PORT = 15_900;

  /**
   * How many ports a cluster over TCP may take, from its base port: a member whose port is taken
   * (another run on this machine) takes the next free one, and its peers look there too.
   */
  private static final int TCP_PORTS = 10;

  public final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
  private final TimeSource memberClock;
  public final TestHazelcastFactory factory = new TestHazelcastFactory();
  public final List<HazelcastInstance> members = new ArrayList<>();
  public final List<GridRateLimiter> limiters = new ArrayList<>();
  private final List<HazelcastInstance> tcpClients = new ArrayList<>();
  private final String clusterName = "test-" + UUID.randomUUID();
  private final InMemoryFormat format;
  private final boolean wallClockTtl;

  /** The first port of this cluster's range over TCP, or 0 on the in-memory network. */
  private final int tcpBasePort;

  /**
   * Each member's sweep period ({@link SluiceHazelcast#SWEEP_PERIOD_MILLIS_PROPERTY}), 0: default.
   */
  private long sweepPeriodMillis;

  GridTestCluster() {
    this(SluiceHazelcast.DEFAULT_STATE_FORMAT, false, false);
  }

  GridTestCluster(InMemoryFormat format, boolean wallClockTtl) {
    this(format, wallClockTtl, false);
  }

  private GridTestCluster(InMemoryFormat format, boolean wallClockTtl, boolean overTcp) {
    this(format, wallClockTtl, overTcp, false);
  }

  private GridTestCluster(
      InMemoryFormat format, boolean wallClockTtl, boolean overTcp, boolean systemClock) {
    this.memberClock = systemClock ? TimeSource.system() : clock;
    this.format = format;
    this.wallClockTtl = wallClockTtl;
    // A random range per cluster, so that two runs on this machine rarely probe each other's.
    this.tcpBasePort =
        overTcp ? TCP_BASE_PORT + ThreadLocalRandom.current().nextInt(300) * TCP_PORTS : 0;
  }

  /**
   * Members whose state entries outlive any test: the manual clock may run ahead of the wall clock,
   * and an entry expiring in wall time would hand its key a fresh budget mid-test.
   */
  public static GridTestCluster start(int members) {
    return start(new GridTestCluster(), members);
  }

  /**
   * Real members over TCP on 127.0.0.1 (multicast off, TCP/IP join within this cluster's port
   * range), for what the in-memory network does not have: a client's answers read on its {@code
   * hz.client_*} threads, members' answers on their IO and response threads, failures carried by
   * real sockets. Each member takes about a second to start: start them once per test class.
   */
  public static GridTestCluster startOverTcp(int members) {
    return start(new GridTestCluster(SluiceHazelcast.DEFAULT_STATE_FORMAT, false, true), members);
  }

  /**
   * Members deciding on the system clock with the production TTL: what a grid node runs, for tests
   * of what only the real clock shows ({@link #clock} is then unused). They sweep idle states every
   * {@value #SYSTEM_CLOCK_SWEEP_MILLIS} ms instead of every 30 s, so that a test of a few seconds
   * runs alongside several passes per member (a pass over 271 partitions takes up to about a second
   * on a loaded 2-core machine, so a shorter period would sweep without pause): a sweep that
   * removed a state still counting would show as an over-admission.
   */
  public static GridTestCluster startOnSystemClock(int members) {
    GridTestCluster cluster =
        new GridTestCluster(SluiceHazelcast.DEFAULT_STATE_FORMAT, true, false, true);
    cluster.sweepPeriodMillis = SYSTEM_CLOCK_SWEEP_MILLIS;
    return start(cluster, members);
  }

  /** The sweep period of {@link #startOnSystemClock} clusters. */
  public static final long SYSTEM_CLOCK_SWEEP_MILLIS = 200;

  /**
   * Members on the manual {@link #clock} that sweep every {@code sweepPeriodMillis} of wall time,
   * judging states by the manual clock.
   */
  public static GridTestCluster startSweepingEvery(long sweepPeriodMillis, int members) {
    GridTestCluster cluster = new GridTestCluster();
    cluster.sweepPeriodMillis = sweepPeriodMillis;
    return start(cluster, members);
  }

  /** Members with the production TTL floor, for the test of TTL cleanup itself. */
  public static GridTestCluster startWithWallClockTtl(int members) {
    return start(new GridTestCluster(SluiceHazelcast.DEFAULT_STATE_FORMAT, true), members);
  }

  /** The members, returned once their partitions have settled ({@link #awaitSafe}). */
  private static GridTestCluster start(GridTestCluster cluster, int members) {
    for (int i = 0; i < members; i++) {
      cluster.addMember();
    }
    return members > 1 ? cluster.awaitSafe() : cluster;
  }

  public Config memberConfig() {
    Config config = new Config().setClusterName(clusterName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    // Expire idle keys promptly in the TTL test (the default sweep runs every 5 s over 10 %).
    config.setProperty("hazelcast.internal.map.expiration.task.period.seconds", "1");
    config.setProperty("hazelcast.internal.map.expiration.cleanup.percentage", "100");
    if (!wallClockTtl) {
      config.setProperty(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY, "3600000");
    }
    if (sweepPeriodMillis > 0) {
      config.setProperty(
          SluiceHazelcast.SWEEP_PERIOD_MILLIS_PROPERTY, Long.toString(sweepPeriodMillis));
    }
    if (overTcp()) {
      config.setProperty("hazelcast.socket.bind.any", "false");
      // Fewer partitions to migrate as each member joins over real sockets: faster to start.
      config.setProperty("hazelcast.partition.count", "31");
      NetworkConfig network = config.getNetworkConfig();
      network.setPort(tcpBasePort).setPortAutoIncrement(true).setPortCount(TCP_PORTS);
      network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
      JoinConfig join = network.getJoin();
      join.getAutoDetectionConfig().setEnabled(false);
      join.getTcpIpConfig().setEnabled(true);
      for (int port = tcpBasePort; port < tcpBasePort + TCP_PORTS; port++) {
        join.getTcpIpConfig().addMember("127.0.0.1:" + port);
      }
    }
    return SluiceHazelcast.configure(config, memberClock, format);
  }

  private boolean overTcp() {
    return tcpBasePort != 0;
  }

  /**
   * A client of this cluster. Over TCP it routes to every member (smart routing) and is returned
   * once it holds a connection to each, so that a batch sent to an owner finds it connected.
   */
  public HazelcastInstance newClient() {
    ClientConfig config = new ClientConfig().setClusterName(clusterName);
    if (!overTcp()) {
      return factory.newHazelcastClient(SluiceHazelcast.configure(config));
    }
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
    for (HazelcastInstance member : members) {
      config.getNetworkConfig().addAddress("127.0.0.1:" + portOf(member));
    }
    HazelcastInstance client =
        HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(config));
    tcpClients.add(client);
    awaitConnectedToEveryMember(client);
    return client;
  }

  private void awaitConnectedToEveryMember(HazelcastInstance client) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    var connections = ((HazelcastClientProxy) client).client.getConnectionManager();
    while (connections.getActiveConnections().size() < members.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the client did not connect to every member within 30 s");
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the client connected", e);
      }
    }
  }

  private static int portOf(HazelcastInstance member) {
    return member.getCluster().getLocalMember().getAddress().getPort();
  }

  public HazelcastInstance addMember() {
    HazelcastInstance member =
        overTcp()
            ? Hazelcast.newHazelcastInstance(memberConfig())
            : factory.newHazelcastInstance(memberConfig());
    members.add(member);
    return member;
  }

  /**
   * A limiter on {@code member}; where the members decide on the manual clock its leases run on
   * that clock too.
   */
  public GridRateLimiter limiter(HazelcastInstance member, GridRateLimiter.Options options) {
    GridRateLimiter limiter =
        new GridRateLimiter(
            member, memberClock == clock ? options.withLeaseClock(clock::nowNanos) : options);
    limiters.add(limiter);
    return limiter;
  }

  public GridRateLimiter limiter(int member) {
    return limiter(members.get(member), GridRateLimiter.Options.defaults());
  }

  /**
   * Waits (at most 60 s) until the members have placed every partition's replicas and no partition
   * is migrating. Until then: a decision on a moving partition waits Hazelcast's retry pause (500
   * ms), and one whose backup a moving replica dropped waits the whole backup timeout (5 s) for an
   * acknowledgement, longer than a test's call timeout; a member's death can lose states that have
   * no backup yet; map statistics skip partitions without a backup replica.
   */
  public GridTestCluster awaitSafe() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!members.get(0).getPartitionService().isClusterSafe()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cluster did not become safe within 60 s");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    return this;
  }

  /**
   * Sends a batch of 20 fresh keys under {@code rule} (limit 2 or more) through {@code limiter}'s
   * batchers and, from the batch's callback, decides the first key again synchronously: a callback
   * left on a Hazelcast partition or network thread fails or hangs there.
   */
  public static Decision decideAgainFromBatchCallback(GridRateLimiter limiter, String rule)
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
  public long backupEntries() {
    long total = 0;
    for (HazelcastInstance member : members) {
      total += member.getMap(GridNames.STATE_MAP).getLocalMapStats().getBackupEntryCount();
    }
    return total;
  }

  @Override
  public void close() {
    limiters.forEach(GridRateLimiter::close);
    tcpClients.forEach(client -> client.getLifecycleService().terminate());
    if (overTcp()) {
      members.forEach(member -> member.getLifecycleService().terminate());
    }
    factory.terminateAll();
  }
}
