package dev.sluice.node;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.client.config.ClientNetworkConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.KubernetesConfig;
import com.hazelcast.config.NetworkConfig;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.node.resp.ClusterView;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The Hazelcast member configuration a node runs with, built from {@link NodeSettings}: network,
 * discovery and the Sluice maps, and nothing left to Hazelcast's defaults that would surprise an
 * operator (no multicast, no auto-detection, no phone-home, a fixed member port).
 */
final class MemberConfig {
  /** How long a graceful shutdown waits for partitions to migrate before giving up. */
  static final int GRACEFUL_SHUTDOWN_SECONDS = 120;

  private MemberConfig() {}

  static Config build(NodeSettings settings, TimeSource timeSource) {
    Config config = new Config();
    config.setClusterName(settings.clusterName());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    // The node's own shutdown hook stops the REST API first, then shuts the member down
    // gracefully; Hazelcast's hook would race it.
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config.setProperty(
        "hazelcast.graceful.shutdown.max.wait", Integer.toString(GRACEFUL_SHUTDOWN_SECONDS));

    NetworkConfig network = config.getNetworkConfig();
    network.setPort(settings.memberPort()).setPortAutoIncrement(false);
    if (settings.publicAddress() != null) {
      network.setPublicAddress(settings.publicAddress());
    }
    String bindAddress = settings.bindAddress();
    boolean bindAny = bindAddress.equals("0.0.0.0") || bindAddress.equals("::");
    if (!bindAny) {
      String ip = resolve(bindAddress);
      config.setProperty("hazelcast.socket.bind.any", "false");
      network.getInterfaces().setEnabled(true).addInterface(ip);
    }

    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    switch (settings.discovery()) {
      case TCP_IP -> {
        List<String> members = settings.members();
        if (members.isEmpty()) {
          String self = bindAny ? "127.0.0.1" : resolve(bindAddress);
          members = List.of(self + ":" + settings.memberPort());
        }
        join.getTcpIpConfig().setEnabled(true).setMembers(members);
      }
      case KUBERNETES_DNS -> {
        KubernetesConfig kubernetes = join.getKubernetesConfig().setEnabled(true);
        kubernetes.setProperty("service-dns", settings.kubernetesServiceDns());
        kubernetes.setProperty("service-port", Integer.toString(settings.memberPort()));
      }
      case KUBERNETES_API -> {
        KubernetesConfig kubernetes = join.getKubernetesConfig().setEnabled(true);
        if (settings.kubernetesNamespace() != null) {
          kubernetes.setProperty("namespace", settings.kubernetesNamespace());
        }
        if (settings.kubernetesServiceName() != null) {
          kubernetes.setProperty("service-name", settings.kubernetesServiceName());
        }
        kubernetes.setProperty("service-port", Integer.toString(settings.memberPort()));
      }
    }

    if (timeSource != TimeSource.system()) {
      // A manual clock (tests) does not follow the wall clock that entry TTLs run on: keep states
      // for an hour of wall time, so cleanup never drops one the manual clock still needs.
      config.setProperty(SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY, "3600000");
    }
    try {
      SluiceHazelcast.configure(config, timeSource);
    } catch (IllegalArgumentException e) {
      // A sluice.* JVM system property (the sweep period) the member cannot run with: one line
      // that names it, like every other setting, not a stack trace.
      throw new NodeConfigException(e.getMessage() + " (a JVM system property)", e);
    }
    // Cluster-mode Redis clients learn every node's Redis port from every node (CLUSTER SLOTS).
    config
        .getMemberAttributeConfig()
        .setAttribute(ClusterView.PORT_ATTRIBUTE, Integer.toString(settings.respPort()));
    config.getMapConfig(GridNames.STATE_MAP).setBackupCount(settings.backupCount());
    config.getMapConfig(GridNames.RULES_MAP).setBackupCount(Math.max(1, settings.backupCount()));
    return config;
  }

  /**
   * The client configuration of a node in client mode: connect to the grid, hold nothing, and never
   * make a REST caller wait on a grid that is gone:
   *
   * <ul>
   *   <li>async start: the node starts without the grid, answers checks by the failure policy and
   *       reports not ready until it has reached it (a deploy during an outage);
   *   <li>async reconnect, retried for ever with a backoff capped at one second: while the grid is
   *       away, calls fail at once ({@code HazelcastClientOfflineException}) and the failure policy
   *       answers; a grid that comes back is found within about a second, with no restart. (A
   *       finite connect timeout would also apply to reconnects: after it the client shuts down for
   *       good.)
   *   <li>an invocation timeout of a few seconds, as the client SDK sets, so a call that hangs on a
   *       half-open connection is not held for Hazelcast's default two minutes.
   * </ul>
   */
  static ClientConfig buildClient(NodeSettings settings) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(settings.clusterName());
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config
        .getConnectionStrategyConfig()
        .setAsyncStart(true)
        .setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ASYNC)
        .getConnectionRetryConfig()
        .setInitialBackoffMillis(100)
        .setMaxBackoffMillis(1_000)
        .setClusterConnectTimeoutMillis(-1);
    long invocationSeconds = Math.max(2, settings.callTimeout().toSeconds() * 2 + 1);
    config.setProperty(
        "hazelcast.client.invocation.timeout.seconds", Long.toString(invocationSeconds));
    ClientNetworkConfig network = config.getNetworkConfig();
    switch (settings.discovery()) {
      case TCP_IP -> network.setAddresses(new java.util.ArrayList<>(settings.members()));
      case KUBERNETES_DNS -> {
        KubernetesConfig kubernetes = network.getKubernetesConfig().setEnabled(true);
        kubernetes.setProperty("service-dns", settings.kubernetesServiceDns());
        kubernetes.setProperty("service-port", Integer.toString(settings.memberPort()));
      }
      case KUBERNETES_API -> {
        KubernetesConfig kubernetes = network.getKubernetesConfig().setEnabled(true);
        if (settings.kubernetesNamespace() != null) {
          kubernetes.setProperty("namespace", settings.kubernetesNamespace());
        }
        if (settings.kubernetesServiceName() != null) {
          kubernetes.setProperty("service-name", settings.kubernetesServiceName());
        }
        kubernetes.setProperty("service-port", Integer.toString(settings.memberPort()));
      }
    }
    return SluiceHazelcast.configure(config);
  }

  /** An interface pattern needs an IP; a host name (e.g. localhost) is resolved once, locally. */
  private static String resolve(String address) {
    return localAddress(address).getHostAddress();
  }

  /**
   * Checks that {@code address} (an IP or host name, or the wildcard) is an address of this
   * machine, so that a typo fails the start with its name rather than with Hazelcast's "no matching
   * network interface" or Jetty's bind error, after the member has started.
   *
   * @throws NodeConfigException naming {@code bindAddress}
   */
  static InetAddress localAddress(String address) {
    InetAddress inet;
    try {
      inet = InetAddress.getByName(address);
    } catch (UnknownHostException e) {
      throw new NodeConfigException(
          "bindAddress: cannot resolve '" + address + "' to an address of this machine", e);
    }
    boolean local;
    try {
      local =
          inet.isAnyLocalAddress()
              || inet.isLoopbackAddress()
              || NetworkInterface.getByInetAddress(inet) != null;
    } catch (SocketException e) {
      local = true; // cannot tell: let the bind itself decide
    }
    if (!local) {
      throw new NodeConfigException(
          "bindAddress: '"
              + address
              + "' is not an address of this machine; use one of its interfaces' addresses,"
              + " 127.0.0.1 for this machine only, or 0.0.0.0 for all");
    }
    return inet;
  }
}
