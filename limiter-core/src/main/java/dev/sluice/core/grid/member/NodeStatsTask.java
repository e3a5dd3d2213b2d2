package dev.sluice.core.grid.member;

import com.hazelcast.client.Client;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.partition.Partition;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.stats.ConnectedClient;
import dev.sluice.core.stats.LatencySeries;
import dev.sluice.core.stats.LeaseTotals;
import dev.sluice.core.stats.MemberFacts;
import dev.sluice.core.stats.NodeSnapshot;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.core.stats.SnapshotCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Runs on every member for the console ({@code GridStatsView}): answers the member's {@link
 * NodeStats} snapshot for the asked seconds, with the facts only the member has (keys and
 * partitions it owns, its migrations, the clients connected to it), encoded by {@link
 * SnapshotCodec}. A member without Sluice node stats (an application's embedded member) answers its
 * facts and empty series.
 */
public final class NodeStatsTask
    implements Callable<byte[]>, IdentifiedDataSerializable, HazelcastInstanceAware {
  private static final int FORMAT = 1;

  private long untilSecond;
  private int seconds;
  private @Nullable String keysOf;
  private transient @Nullable HazelcastInstance member;

  /** For deserialization. */
  public NodeStatsTask() {}

  /**
   * @param keysOf as {@link NodeStats#snapshot}: null for no limited keys, empty for every rule's
   */
  public NodeStatsTask(long untilSecond, int seconds, @Nullable String keysOf) {
    this.untilSecond = untilSecond;
    this.seconds = seconds;
    this.keysOf = keysOf;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.member = hazelcastInstance;
  }

  @Override
  public byte[] call() {
    HazelcastInstance self = member;
    if (self == null) {
      throw new IllegalStateException("not injected with its member");
    }
    Member local = self.getCluster().getLocalMember();
    String address = local.getAddress().getHost() + ":" + local.getAddress().getPort();
    NodeStats stats = GridStats.statsOf(self);
    NodeSnapshot snapshot =
        stats != null
            ? stats.snapshot(untilSecond, seconds, keysOf)
            : new NodeSnapshot(
                address,
                untilSecond,
                seconds,
                List.of(),
                LatencySeries.empty(seconds),
                LeaseTotals.NONE,
                List.of(),
                Map.of(),
                0,
                null);
    return SnapshotCodec.encode(snapshot.withMember(facts(self, local, address)));
  }

  private static MemberFacts facts(HazelcastInstance self, Member local, String address) {
    int owned = 0;
    for (Partition partition : self.getPartitionService().getPartitions()) {
      if (local.equals(partition.getOwner())) {
        owned++;
      }
    }
    List<ConnectedClient> clients = new ArrayList<>();
    for (Client client : self.getClientService().getConnectedClients()) {
      clients.add(
          new ConnectedClient(
              client.getUuid().toString(),
              String.valueOf(client.getName()),
              String.valueOf(client.getClientType()),
              String.valueOf(client.getSocketAddress())));
    }
    GridStats.Migrations migrations = GridStats.migrationsOf(self);
    return new MemberFacts(
        address,
        local.getUuid().toString(),
        true,
        self.getMap(GridNames.STATE_MAP).getLocalMapStats().getOwnedEntryCount(),
        owned,
        self.getPartitionService().isLocalMemberSafe(),
        migrations == null ? 0 : migrations.completed(),
        migrations == null ? 0 : migrations.failed(),
        clients);
  }

  private static LatencySeries emptyLatency(int seconds) {
    return new LatencySeries(
        new int[seconds], new int[seconds], new int[seconds], new int[seconds]);
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.NODE_STATS;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    out.writeLong(untilSecond);
    out.writeInt(seconds);
    out.writeString(keysOf);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown node stats task format " + format);
    }
    untilSecond = in.readLong();
    seconds = in.readInt();
    keysOf = in.readString();
  }
}
