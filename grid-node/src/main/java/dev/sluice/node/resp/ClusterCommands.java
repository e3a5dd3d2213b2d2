package dev.sluice.node.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code CLUSTER SLOTS|SHARDS|NODES|INFO|MYID|KEYSLOT}: what cluster-mode clients (Lettuce's {@code
 * RedisClusterClient}, {@code JedisCluster}, {@code redis-cli -c}) ask to learn the nodes.
 *
 * <p>The 16,384 slots are shared out in contiguous ranges among the nodes of the {@link
 * ClusterView}, in its order: node i of n holds {@code [i·16384/n, (i+1)·16384/n - 1]}. The split
 * says nothing about where a key's state lives (the grid's partitions do, and any node reaches the
 * owner), so a client that sends a key to the "wrong" node is answered all the same: no {@code
 * MOVED}, no {@code ASK}. Every node is a master with no replicas (the grid keeps the backups).
 */
final class ClusterCommands {
  static final int SLOTS = 16_384;

  private final ClusterView view;

  ClusterCommands(ClusterView view) {
    this.view = view;
  }

  Step handle(RespCommand command, Session session) {
    String sub = command.ascii(1).toLowerCase(Locale.ROOT);
    List<ClusterView.Node> nodes = view.nodes();
    return new Step.Now(
        switch (sub) {
          case "slots" -> only(command, 2, slots(nodes));
          case "shards" -> only(command, 2, shards(nodes));
          case "nodes" -> only(command, 2, Reply.bulk(nodesText(nodes)));
          case "info" -> only(command, 2, new Reply.Verbatim(info(nodes)));
          case "myid" -> only(command, 2, Reply.bulk(self(nodes).id()));
          case "keyslot" -> {
            if (command.size() != 3) {
              throw new CommandError(CommandTable.arityError("cluster|keyslot"));
            }
            yield Reply.integer(slot(command.bytes(2)));
          }
          default ->
              throw new CommandError(
                  "ERR unknown subcommand '"
                      + command.quoted(1)
                      + "'. Try CLUSTER SLOTS, SHARDS, NODES, INFO, MYID or KEYSLOT.");
        });
  }

  private static Reply only(RespCommand command, int size, Reply reply) {
    if (command.size() != size) {
      throw new CommandError(
          CommandTable.arityError("cluster|" + command.ascii(1).toLowerCase(Locale.ROOT)));
    }
    return reply;
  }

  /** The first slot of node {@code i} of {@code n}. */
  static int firstSlot(int i, int n) {
    return (int) ((long) i * SLOTS / n);
  }

  static int lastSlot(int i, int n) {
    return firstSlot(i + 1, n) - 1;
  }

  private static Reply slots(List<ClusterView.Node> nodes) {
    List<Reply> ranges = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      ClusterView.Node node = nodes.get(i);
      ranges.add(
          Reply.array(
              Reply.integer(firstSlot(i, nodes.size())),
              Reply.integer(lastSlot(i, nodes.size())),
              Reply.array(
                  Reply.bulk(node.host()), Reply.integer(node.port()), Reply.bulk(node.id()))));
    }
    return Reply.array(ranges);
  }

  private static Reply shards(List<ClusterView.Node> nodes) {
    List<Reply> shards = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      ClusterView.Node node = nodes.get(i);
      shards.add(
          Reply.map(
              "slots",
              Reply.array(
                  Reply.integer(firstSlot(i, nodes.size())),
                  Reply.integer(lastSlot(i, nodes.size()))),
              "nodes",
              Reply.array(
                  Reply.map(
                      "id", Reply.bulk(node.id()),
                      "port", Reply.integer(node.port()),
                      "ip", Reply.bulk(node.host()),
                      "endpoint", Reply.bulk(node.host()),
                      "role", Reply.bulk("master"),
                      "replication-offset", Reply.integer(0),
                      "health", Reply.bulk("online")))));
    }
    return Reply.array(shards);
  }

  /**
   * {@code <id> <ip:port@cport> <flags> <master> <ping-sent> <pong-recv> <config-epoch>
   * <link-state> <slot range>}, a line per node.
   */
  static String nodesText(List<ClusterView.Node> nodes) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      ClusterView.Node node = nodes.get(i);
      text.append(node.id())
          .append(' ')
          .append(node.host())
          .append(':')
          .append(node.port())
          .append('@')
          .append(node.busPort())
          .append(node.self() ? " myself,master" : " master")
          .append(" - 0 0 ")
          .append(i + 1)
          .append(" connected ")
          .append(firstSlot(i, nodes.size()))
          .append('-')
          .append(lastSlot(i, nodes.size()))
          .append('\n');
    }
    return text.toString();
  }

  private static String info(List<ClusterView.Node> nodes) {
    return "cluster_enabled:1\r\n"
        + "cluster_state:ok\r\n"
        + "cluster_slots_assigned:"
        + SLOTS
        + "\r\ncluster_slots_ok:"
        + SLOTS
        + "\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:"
        + nodes.size()
        + "\r\ncluster_size:"
        + nodes.size()
        + "\r\ncluster_current_epoch:"
        + nodes.size()
        + "\r\ncluster_my_epoch:"
        + (nodes.indexOf(self(nodes)) + 1)
        + "\r\n";
  }

  private static ClusterView.Node self(List<ClusterView.Node> nodes) {
    for (ClusterView.Node node : nodes) {
      if (node.self()) {
        return node;
      }
    }
    throw new CommandError("ERR this node is not in its own cluster view yet; retry");
  }

  /**
   * A key's slot as Redis computes it: CRC16 (XMODEM) of the key, or of its hash tag (what is
   * between the first {@code {} and the next {@code }}, if not empty), modulo 16,384.
   */
  static int slot(byte[] key) {
    int start = -1;
    for (int i = 0; i < key.length; i++) {
      if (key[i] == '{') {
        start = i;
        break;
      }
    }
    int from = 0;
    int to = key.length;
    if (start >= 0) {
      for (int j = start + 1; j < key.length; j++) {
        if (key[j] == '}') {
          if (j > start + 1) {
            from = start + 1;
            to = j;
          }
          break;
        }
      }
    }
    return crc16(key, from, to) & (SLOTS - 1);
  }

  /** CRC-16/XMODEM (polynomial 0x1021, initial 0), Redis Cluster's key hash. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= (bytes[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xffff;
    }
    return crc;
  }

  static int slot(String key) {
    return slot(key.getBytes(StandardCharsets.UTF_8));
  }
}
