package dev.sluice.bench.load;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.CacheDeserializedValues;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.util.List;

/**
 * Hazelcast configuration shared by every member and client the harness starts itself, so that
 * Bucket4j's member is configured like Sluice's: loopback only, TCP/IP join, no multicast, the
 * default 271 partitions, and the state map's backup count and in-memory format copied from
 * Sluice's state map (see {@link #BUCKET4J_MAP}).
 */
public final class BenchMembers {
  /** The name of Bucket4j's state map. */
  public static final String BUCKET4J_MAP = "bucket4j.state";

  /** Type id base for Bucket4j's Hazelcast serializers (they are not Java-serialized). */
  public static final int BUCKET4J_TYPE_ID_BASE = 10_000;

  /** JVM flags for every server JVM the harness starts (Sluice node, Bucket4j member, ceiling). */
  public static final List<String> SERVER_JVM_FLAGS =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "-XX:+UseG1GC",
          "-Dhazelcast.phone.home.enabled=false",
          "-Dhazelcast.logging.type=slf4j",
          "--add-modules=java.se",
          "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.management/sun.management=ALL-UNNAMED",
          "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED");

  private BenchMembers() {}

  /** A member on 127.0.0.1:{@code port}, alone in its own cluster. */
  public static Config member(String clusterName, int port) {
    Config config = new Config();
    config.setClusterName(clusterName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.shutdownhook.policy", "GRACEFUL");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(port).setPortAutoIncrement(true);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port);
    return config;
  }

  /** A Bucket4j member: {@link #member} plus Bucket4j's serializers and its state map. */
  public static Config bucket4jMember(
      String clusterName, int port, int backupCount, InMemoryFormat inMemoryFormat) {
    Config config = member(clusterName, port);
    HazelcastProxyManager.addCustomSerializers(
        config.getSerializationConfig(), BUCKET4J_TYPE_ID_BASE);
    // The state map's settings that bear on speed and memory, as SluiceHazelcast sets them.
    config
        .getMapConfig(BUCKET4J_MAP)
        .setBackupCount(backupCount)
        .setInMemoryFormat(inMemoryFormat)
        .setCacheDeserializedValues(CacheDeserializedValues.NEVER);
    return config;
  }

  /** A smart client (one hop to the owner) of the member at 127.0.0.1:{@code port}. */
  public static ClientConfig client(String clusterName, int port) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(clusterName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    // Smart routing (one hop to the owner) is the default.
    config.getNetworkConfig().addAddress("127.0.0.1:" + port);
    // Give up on a server that is not there instead of retrying forever.
    config
        .getConnectionStrategyConfig()
        .getConnectionRetryConfig()
        .setClusterConnectTimeoutMillis(30_000);
    return config;
  }

  /** A Bucket4j client: {@link #client} plus Bucket4j's serializers. */
  public static ClientConfig bucket4jClient(String clusterName, int port) {
    ClientConfig config = client(clusterName, port);
    HazelcastProxyManager.addCustomSerializers(
        config.getSerializationConfig(), BUCKET4J_TYPE_ID_BASE);
    return config;
  }
}
