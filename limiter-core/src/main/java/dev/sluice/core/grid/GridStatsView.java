package dev.sluice.core.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import dev.sluice.core.grid.member.GridStats;
import dev.sluice.core.grid.member.NodeStatsTask;
import dev.sluice.core.stats.ClusterStats;
import dev.sluice.core.stats.ConnectedClient;
import dev.sluice.core.stats.GridView;
import dev.sluice.core.stats.KeySummary;
import dev.sluice.core.stats.MemberFacts;
import dev.sluice.core.stats.NodeSnapshot;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.core.stats.SnapshotCodec;
import dev.sluice.core.stats.StatsView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The console's stats of a whole grid, gathered through Hazelcast's public executor: {@link
 * NodeStatsTask} runs on every member, each answers its snapshot for the same epoch seconds, and
 * {@link ClusterStats#merge} adds them up. A member that does not answer within the timeout is
 * listed as silent and its counts are missing (the console says so).
 *
 * <p>On a node that is a Hazelcast client of the grid (a client-mode node), its own decisions are
 * not on any member (members count what their own front ends decide), so its own {@code NodeStats}
 * are merged in too. The decisions of other client-mode nodes are on their own consoles and in
 * Prometheus.
 */
public final class GridStatsView implements StatsView {
  /** The executor the stats task runs on, apart from the rules' so neither waits for the other. */
  public static final String EXECUTOR = "sluice.console.stats";

  private final HazelcastInstance hazelcast;
  private final String clusterName;
  private final @Nullable NodeStats clientOwn;
  private final Duration timeout;

  /**
   * @param hazelcast a member or a client of the grid
   * @param clusterName the grid's name, for the console
   * @param own this node's stats: installed for the stats task on a member ({@link
   *     GridStats#install}), merged in directly on a client
   * @param timeout how long to wait for the members' answers
   */
  public GridStatsView(
      HazelcastInstance hazelcast, String clusterName, NodeStats own, Duration timeout) {
    this.hazelcast = hazelcast;
    this.clusterName = clusterName;
    this.timeout = timeout;
    boolean member = hazelcast.getLocalEndpoint() instanceof Member;
    if (member) {
      GridStats.install(hazelcast, own);
    }
    this.clientOwn = member ? null : own;
  }

  @Override
  public ClusterStats stats(int seconds) {
    long until = NodeStats.lastClosedSecond(System.currentTimeMillis());
    Gathered gathered = gather(until, seconds, null);
    return ClusterStats.merge(until, seconds, gathered.snapshots(), gathered.grid());
  }

  @Override
  public Map<String, KeySummary> limitedKeys(@Nullable String rule) {
    long until = NodeStats.lastClosedSecond(System.currentTimeMillis());
    return ClusterStats.mergeKeys(gather(until, 0, rule == null ? "" : rule).snapshots());
  }

  private record Gathered(List<NodeSnapshot> snapshots, GridView grid) {}

  private Gathered gather(long until, int seconds, @Nullable String keysOf) {
    IExecutorService executor = hazelcast.getExecutorService(EXECUTOR);
    Map<Member, Future<byte[]>> answers =
        executor.submitToAllMembers(new NodeStatsTask(until, seconds, keysOf));
    long deadline = System.nanoTime() + timeout.toNanos();
    List<NodeSnapshot> snapshots = new ArrayList<>();
    List<MemberFacts> members = new ArrayList<>();
    Map<String, ConnectedClient> clients = new LinkedHashMap<>();
    for (Member member : hazelcast.getCluster().getMembers()) {
      String address = member.getAddress().getHost() + ":" + member.getAddress().getPort();
      NodeSnapshot snapshot = answer(answers.get(member), deadline);
      if (snapshot == null || snapshot.member() == null) {
        members.add(MemberFacts.silent(address, member.getUuid().toString()));
        continue;
      }
      snapshots.add(snapshot);
      members.add(snapshot.member());
      for (ConnectedClient client : snapshot.member().clients()) {
        clients.putIfAbsent(client.uuid(), client);
      }
    }
    if (clientOwn != null) {
      snapshots.add(clientOwn.snapshot(until, seconds, keysOf));
    }
    members.sort(Comparator.comparing(MemberFacts::address));
    GridView grid =
        new GridView(
            clusterName,
            hazelcast.getPartitionService().getPartitions().size(),
            members,
            new ArrayList<>(clients.values()));
    return new Gathered(snapshots, grid);
  }

  private static @Nullable NodeSnapshot answer(@Nullable Future<byte[]> future, long deadline) {
    if (future == null) {
      return null;
    }
    try {
      long left = Math.max(0, deadline - System.nanoTime());
      return SnapshotCodec.decode(future.get(left, TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
      future.cancel(false);
      return null; // listed as silent
    }
  }
}
