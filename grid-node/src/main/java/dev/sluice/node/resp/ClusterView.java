package dev.sluice.node.resp;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * The nodes that serve the Redis protocol, as cluster-mode clients are told about them ({@code
 * CLUSTER SLOTS|SHARDS|NODES}): every member of the grid that serves it, each at its host and Redis
 * port. Any node accepts any key (it reaches the key's owner as every front end's call does), so
 * the slots are simply shared out among them; the view only has to cover all 16,384 and name live
 * nodes.
 */
public interface ClusterView {
  /** The member attribute that carries a member's Redis port (absent or 0: it serves none). */
  String PORT_ATTRIBUTE = "sluice.resp.port";

  /**
   * A node serving the Redis protocol.
   *
   * @param id 40 hex digits, as Redis names cluster nodes; stable for the member's life
   * @param busPort the member's grid port, shown where Redis shows its cluster bus port
   * @param self whether it is this node
   */
  record Node(String id, String host, int port, int busPort, boolean self) {}

  /** The nodes, this one among them, in the same order on every node. */
  List<Node> nodes();

  /** A node on its own (client mode: the only node it can speak for). */
  static ClusterView alone(String host, int port) {
    Node self = new Node(id(host + ":" + port), host, port, 0, true);
    return () -> List.of(self);
  }

  /** The members of {@code member}'s cluster that advertise a Redis port. */
  static ClusterView members(HazelcastInstance member) {
    return () -> {
      List<Node> nodes = new ArrayList<>();
      Member local = member.getCluster().getLocalMember();
      for (Member candidate : member.getCluster().getMembers()) {
        String port = candidate.getAttribute(PORT_ATTRIBUTE);
        if (port == null || port.equals("0")) {
          continue;
        }
        nodes.add(
            new Node(
                id(candidate.getUuid()),
                candidate.getAddress().getHost(),
                Integer.parseInt(port),
                candidate.getAddress().getPort(),
                candidate.getUuid().equals(local.getUuid())));
      }
      nodes.sort(Comparator.comparing(Node::id));
      return nodes;
    };
  }

  /** A member's node id: its UUID's 32 hex digits and 8 of a hash of them. */
  static String id(UUID uuid) {
    String hex = uuid.toString().replace("-", "");
    return hex + sha1(hex).substring(0, 8);
  }

  private static String id(String seed) {
    return sha1(seed);
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-1", e);
    }
  }
}
