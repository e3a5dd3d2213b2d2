package dev.sluice.core.test;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.grid.SluiceHazelcast;
import java.util.UUID;

/**
 * A grid that is not there, for the tests of what every front end answers then: a real Hazelcast
 * client, started without waiting, pointed at a loopback port where no member listens, so that
 * every call fails as it does while a client is offline.
 */
public final class OfflineGrid {
  private OfflineGrid() {}

  /** The offline client; the caller shuts it down. */
  public static HazelcastInstance client() {
    ClientConfig config = new ClientConfig().setClusterName("offline-" + UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().addAddress("127.0.0.1:" + freePort());
    config
        .getConnectionStrategyConfig()
        .setAsyncStart(true)
        .setReconnectMode(ReconnectMode.ASYNC)
        .getConnectionRetryConfig()
        .setClusterConnectTimeoutMillis(-1);
    return HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(config));
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }
}
