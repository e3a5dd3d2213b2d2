package dev.sluice.core.grid.region;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.core.grid.SluiceHazelcast;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A home grid and two regions, each a cluster of its own on 127.0.0.1 with random names and free
 * ports, the regions' links to home through {@link DelayingProxy}s (one per home member).
 *
 * <p>Home members serve clients on an endpoint of their own whose public address is the member's
 * proxy, so the member list a region's client receives names the proxies: the link never bypasses
 * them, on reconnection either. Members talk among themselves directly.
 *
 * <p>Public, in the test-jar, for the multi-region benchmark scenario (S10 in {@code benchmarks}),
 * which runs its load on the same clusters that this package's tests judge.
 */
public final class Regions implements AutoCloseable {
  public final List<HazelcastInstance> home = new ArrayList<>();
  public final List<GridRateLimiter> homeLimiters = new ArrayList<>();
  private final List<DelayingProxy> proxies = new ArrayList<>();
  public final List<HazelcastInstance> regionA = new ArrayList<>();
  public final List<HazelcastInstance> regionB = new ArrayList<>();
  public final List<GridRateLimiter> limitersA = new ArrayList<>();
  public final List<GridRateLimiter> limitersB = new ArrayList<>();
  public final List<RegionLink> links = new ArrayList<>();
  private final String homeCluster = "home-" + UUID.randomUUID();

  public static Regions start(int homeMembers, long roundTripMillis, Duration homeTimeout)
      throws IOException {
    Regions regions = new Regions();
    regions.startHome(homeMembers, roundTripMillis);
    regions.startRegion("a", regions.regionA, regions.limitersA, homeTimeout);
    regions.startRegion("b", regions.regionB, regions.limitersB, homeTimeout);
    regions.awaitLinksUp();
    return regions;
  }

  /**
   * Waits until every region member's link to home is up: a check made before would be answered by
   * the rule's failure policy, which a test or a benchmark of the steady state must not count.
   */
  private void awaitLinksUp() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (RegionLink link : links) {
      while (link.state() != RegionLink.State.UP) {
        if (System.nanoTime() - deadline > 0) {
          close();
          throw new IllegalStateException("region " + link.region() + ": its link to home is down");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // waiting for a connection
      }
    }
  }

  private void startHome(int count, long roundTripMillis) throws IOException {
    int[] memberPorts = new int[count];
    int[] clientPorts = new int[count];
    for (int i = 0; i < count; i++) {
      memberPorts[i] = freePort();
      clientPorts[i] = freePort();
      proxies.add(new DelayingProxy(clientPorts[i], roundTripMillis));
    }
    for (int i = 0; i < count; i++) {
      Config config = new Config().setClusterName(homeCluster);
      config.setProperty("hazelcast.logging.type", "none");
      config.getAdvancedNetworkConfig().setEnabled(true);
      config
          .getAdvancedNetworkConfig()
          .setMemberEndpointConfig(
              new ServerSocketEndpointConfig()
                  .setPort(memberPorts[i])
                  .setPortAutoIncrement(false)
                  .setPublicAddress("127.0.0.1:" + memberPorts[i]));
      config
          .getAdvancedNetworkConfig()
          .setClientEndpointConfig(
              new ServerSocketEndpointConfig()
                  .setPort(clientPorts[i])
                  .setPortAutoIncrement(false)
                  .setPublicAddress("127.0.0.1:" + proxies.get(i).port()));
      JoinConfig join = config.getAdvancedNetworkConfig().getJoin();
      join.getMulticastConfig().setEnabled(false);
      join.getAutoDetectionConfig().setEnabled(false);
      join.getTcpIpConfig().setEnabled(true);
      for (int port : memberPorts) {
        join.getTcpIpConfig().addMember("127.0.0.1:" + port);
      }
      home.add(
          Hazelcast.newHazelcastInstance(SluiceHazelcast.configure(config, TimeSource.system())));
    }
    for (HazelcastInstance member : home) {
      homeLimiters.add(new GridRateLimiter(member));
    }
  }

  private void startRegion(
      String name,
      List<HazelcastInstance> members,
      List<GridRateLimiter> limiters,
      Duration timeout)
      throws IOException {
    String cluster = name + "-" + UUID.randomUUID();
    int[] ports = {freePort(), freePort()};
    for (int port : ports) {
      Config config = new Config().setClusterName(cluster);
      config.setProperty("hazelcast.logging.type", "none");
      config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
      config.getNetworkConfig().setPublicAddress("127.0.0.1:" + port);
      JoinConfig join = config.getNetworkConfig().getJoin();
      join.getMulticastConfig().setEnabled(false);
      join.getAutoDetectionConfig().setEnabled(false);
      join.getTcpIpConfig().setEnabled(true);
      for (int peer : ports) {
        join.getTcpIpConfig().addMember("127.0.0.1:" + peer);
      }
      HazelcastInstance member =
          Hazelcast.newHazelcastInstance(SluiceHazelcast.configure(config, TimeSource.system()));
      members.add(member);
      ClientConfig toHome = new ClientConfig().setClusterName(homeCluster);
      toHome.setProperty("hazelcast.logging.type", "none");
      for (DelayingProxy proxy : proxies) {
        toHome.getNetworkConfig().addAddress("127.0.0.1:" + proxy.port());
      }
      links.add(RegionLink.install(member, name, toHome, timeout));
      limiters.add(new GridRateLimiter(member));
    }
  }

  /** Defines {@code rule} at home and in both regions. */
  public void put(Rule rule) {
    homeLimiters.get(0).rules().put(rule);
    limitersA.get(0).rules().put(rule);
    limitersB.get(0).rules().put(rule);
  }

  public void cut() {
    proxies.forEach(DelayingProxy::cut);
  }

  public void restore() {
    proxies.forEach(DelayingProxy::restore);
  }

  public void setRoundTrip(long millis) {
    proxies.forEach(proxy -> proxy.setRoundTrip(millis));
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    for (RegionLink link : links) {
      link.close();
    }
    for (HazelcastInstance member : regionA) {
      member.getLifecycleService().terminate();
    }
    for (HazelcastInstance member : regionB) {
      member.getLifecycleService().terminate();
    }
    for (HazelcastInstance member : home) {
      member.getLifecycleService().terminate();
    }
    for (DelayingProxy proxy : proxies) {
      proxy.close();
    }
  }
}
