package dev.sluice.core.stats;

import java.util.List;

/**
 * The grid behind a node: its members and the clients connected to them.
 *
 * @param clusterName the Hazelcast cluster name; empty for a limiter without a grid
 * @param partitionCount partitions of the grid (271 by default)
 * @param members every member of the cluster, by address
 * @param clients every client connected to some member, once each
 */
public record GridView(
    String clusterName,
    int partitionCount,
    List<MemberFacts> members,
    List<ConnectedClient> clients) {

  public static final GridView NONE = new GridView("", 0, List.of(), List.of());

  public GridView {
    members = List.copyOf(members);
    clients = List.copyOf(clients);
  }
}
