package dev.sluice.node;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.KubernetesConfig;
import com.hazelcast.config.NetworkConfig;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.node.resp.ClusterView;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

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
    nodeProperties(config::setProperty);
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
    if (settings.discovery() == NodeSettings.Discovery.TCP_IP) {
      List<String> members = settings.members();
      if (members.isEmpty()) {
        String self = bindAny ? "127.0.0.1" : resolve(bindAddress);
        members = List.of(self + ":" + settings.memberPort());
      }
      join.getTcpIpConfig().setEnabled(true).setMembers(members);
    } else {
      kubernetes(join.getKubernetesConfig(), settings);
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
   * The client configuration of a node in client mode: the Java SDK's ({@link
   * SluiceClient.Builder#hazelcastClientConfig()}), so that a client-mode node reaches the grid
   * exactly as an application does (async start and reconnect, so the node starts and answers by
   * its failure policy while the grid is away; an invocation timeout of a few call timeouts), with
   * the node's discovery and properties.
   */
  static ClientConfig buildClient(NodeSettings settings) {
    return SluiceClient.builder()
        .clusterName(settings.clusterName())
        .addresses(settings.members().toArray(String[]::new))
        .callTimeout(settings.callTimeout())
        .clientConfig(
            config -> {
              nodeProperties(config::setProperty);
              if (settings.discovery() != NodeSettings.Discovery.TCP_IP) {
                // Hazelcast takes one way to find members: Kubernetes instead of the addresses.
                config.getNetworkConfig().setAddresses(new ArrayList<>());
                kubernetes(config.getNetworkConfig().getKubernetesConfig(), settings);
              }
            })
        .hazelcastClientConfig();
  }

  /**
   * What a node's member and client share: Hazelcast logs through SLF4J, never phones home, and
   * installs no shutdown hook (the node's own hook stops the front ends first, then shuts the
   * member down gracefully; Hazelcast's would race it).
   */
  private static void nodeProperties(BiConsumer<String, String> property) {
    property.accept("hazelcast.logging.type", "slf4j");
    property.accept("hazelcast.phone.home.enabled", "false");
    property.accept("hazelcast.shutdownhook.enabled", "false");
  }

  /** Kubernetes discovery, the same for a member joining and a client connecting. */
  private static void kubernetes(KubernetesConfig kubernetes, NodeSettings settings) {
    kubernetes.setEnabled(true);
    if (settings.discovery() == NodeSettings.Discovery.KUBERNETES_DNS) {
      kubernetes.setProperty("service-dns", settings.kubernetesServiceDns());
    } else {
      if (settings.kubernetesNamespace() != null) {
        kubernetes.setProperty("namespace", settings.kubernetesNamespace());
      }
      if (settings.kubernetesServiceName() != null) {
        kubernetes.setProperty("service-name", settings.kubernetesServiceName());
      }
    }
    kubernetes.setProperty("service-port", Integer.toString(settings.memberPort()));
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
