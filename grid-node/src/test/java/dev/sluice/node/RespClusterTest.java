package dev.sluice.node;

import static dev.sluice.node.RedisClients.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three members, and Lettuce's {@code RedisClusterClient} seeded with one of them: it learns all
 * three from {@code CLUSTER NODES}, covering the 16,384 slots, and routes each key to a node by its
 * slot; whichever node a key reaches, its one state (at its owner in the grid) decides.
 */
class RespClusterTest {
  @RegisterExtension static final RespNode CLUSTER = RespNode.cluster(3);

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void clusterClient_learnsTheThreeNodes_coveringEverySlot_andLimitsKeysOnAnyOfThem(
      ProtocolVersion protocol) {
    RedisClusterClient client =
        RedisClusterClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(CLUSTER.nodes().get(1).respPort())
                .withTimeout(Duration.ofSeconds(10))
                .build());
    client.setOptions(ClusterClientOptions.builder().protocolVersion(protocol).build());
    try (StatefulRedisClusterConnection<String, String> cluster = client.connect()) {
      List<RedisClusterNode> known = cluster.getPartitions().getPartitions();
      assertThat(known).hasSize(3);
      Set<Integer> ports = new HashSet<>();
      int slots = 0;
      for (RedisClusterNode node : known) {
        ports.add(node.getUri().getPort());
        slots += node.getSlots().size();
      }
      assertThat(ports).containsExactlyInAnyOrderElementsOf(respPorts());
      assertThat(slots).isEqualTo(16_384);

      String prefix = protocol + "-" + UUID.randomUUID() + ":";
      Set<String> reached = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        String key = prefix + i;
        reached.add(cluster.getPartitions().getPartitionBySlot(slot(key)).getNodeId());
        assertThat(call(cluster, "CL.THROTTLE", key, 1, 1, 60))
            .containsExactly(0L, 2L, 1L, -1L, 60L);
        assertThat(call(cluster, "CL.THROTTLE", key, 1, 1, 60))
            .containsExactly(0L, 2L, 0L, -1L, 120L);
        assertThat(call(cluster, "CL.THROTTLE", key, 1, 1, 60).get(0)).isEqualTo(1L);
      }
      assertThat(reached).as("keys routed to every node").hasSize(3);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** A key sent to each node in turn, as a client that ignores slots would: one state decides. */
  @Test
  void oneKey_onEveryNode_isOneState() {
    String key = "anywhere-" + UUID.randomUUID();
    List<RedisClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        RedisClient client =
            RedisClients.client(CLUSTER.nodes().get(i).respPort(), ProtocolVersion.RESP2);
        clients.add(client);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
          assertThat(call(redis, "CL.THROTTLE", key, 2, 1, 60).get(2))
              .as("remaining after the call on node %d", i)
              .isEqualTo((long) (2 - i));
        }
      }
    } finally {
      clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }
  }

  @Test
  void clusterShardsAndSlots_fromEveryNode_agree() {
    List<List<Object>> views = new ArrayList<>();
    for (SluiceNode node : CLUSTER.nodes()) {
      RedisClient client = RedisClients.client(node.respPort(), ProtocolVersion.RESP3);
      try (StatefulRedisConnection<String, String> redis = client.connect()) {
        views.add(call(redis, "CLUSTER", "SLOTS"));
        assertThat(call(redis, "CLUSTER", "SHARDS")).hasSize(3);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
    assertThat(views.get(0)).hasSize(3).isEqualTo(views.get(1)).isEqualTo(views.get(2));
  }

  private static List<Integer> respPorts() {
    return CLUSTER.nodes().stream().map(SluiceNode::respPort).toList();
  }

  private static int slot(String key) {
    return io.lettuce.core.cluster.SlotHash.getSlot(key);
  }
}
