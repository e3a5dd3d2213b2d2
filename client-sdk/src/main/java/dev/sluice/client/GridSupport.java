package dev.sluice.client;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.grid.SluiceHazelcast;
import java.util.List;

/** The Hazelcast client a {@link SluiceClient} starts: its settings, and starting it. */
final class GridSupport {
  private GridSupport() {}

  /**
   * The Hazelcast client settings of a Sluice client. Nothing here may block a caller forever:
   *
   * <ul>
   *   <li>all-members routing (smart routing): each key's request goes straight to its owner;
   *   <li>async start: starting the client does not wait for the cluster at all; it connects in the
   *       background, and decisions follow the failure policy until it has ({@link
   *       GridConnection});
   *   <li>async reconnect with a backoff capped at one second: a returning grid is found quickly
   *       and calls meanwhile fail fast ({@code HazelcastClientOfflineException});
   *   <li>an invocation timeout of a few seconds, so a call the client gave up on (after the call
   *       timeout) does not hold resources for Hazelcast's default two minutes.
   * </ul>
   */
  static ClientConfig clientConfig(SluiceClient.Builder options) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(options.clusterName);
    config
        .getNetworkConfig()
        .setAddresses(
            options.addresses.isEmpty()
                ? List.of("127.0.0.1:5701")
                : List.copyOf(options.addresses));
    config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
    config
        .getConnectionStrategyConfig()
        .setAsyncStart(true)
        .setReconnectMode(ReconnectMode.ASYNC)
        .getConnectionRetryConfig()
        .setInitialBackoffMillis(100)
        .setMaxBackoffMillis(1_000)
        .setClusterConnectTimeoutMillis(-1);
    long invocationSeconds = Math.max(2, options.callTimeout.toSeconds() * 2 + 1);
    config.setProperty(
        "hazelcast.client.invocation.timeout.seconds", Long.toString(invocationSeconds));
    SluiceHazelcast.configure(config);
    options.clientConfigCustomizer.accept(config);
    return config;
  }

  /** Starts the Hazelcast client; it connects in the background. */
  static HazelcastInstance start(ClientConfig config) {
    return HazelcastClient.newHazelcastClient(config);
  }
}
