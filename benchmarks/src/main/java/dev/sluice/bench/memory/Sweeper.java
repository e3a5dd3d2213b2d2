package dev.sluice.bench.memory;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import com.hazelcast.query.Predicates;
import java.util.ArrayList;
import java.util.List;

/**
 * Candidate (a)'s scheduler side, public Hazelcast API only: a member sweeps the partitions it
 * owns, one partition per call ({@code executeOnEntries} with a {@code PartitionPredicate}), so
 * each call holds one partition thread for the time it takes to look at that partition's entries
 * (about 3,700 at 10^6 keys over 271 partitions) and decisions on other partitions go on meanwhile.
 * A product version runs {@link #sweepOwned} every period P on every member (a daemon thread
 * started with the member); a partition that migrates between planning and the call is swept by
 * whichever member owns it when the call arrives, with the sender's {@code now}.
 */
final class Sweeper {
  private final IMap<Object, Object> map;
  private final PartitionService partitions;
  private final HazelcastInstance member;
  private final Object[] partitionKeys;

  Sweeper(HazelcastInstance member, String mapName) {
    this.member = member;
    this.map = member.getMap(mapName);
    this.partitions = member.getPartitionService();
    int count = partitions.getPartitions().size();
    this.partitionKeys = new Object[count];
    int found = 0;
    // A key that lands on each partition, for partitionPredicate: a few thousand tries.
    for (int i = 0; found < count && i < 10_000_000; i++) {
      String key = "sweep-" + i;
      int id = partitions.getPartition(key).getPartitionId();
      if (partitionKeys[id] == null) {
        partitionKeys[id] = key;
        found++;
      }
    }
    if (found < count) {
      throw new IllegalStateException("no key found for some partitions");
    }
  }

  /** Sweeps every partition this member owns at {@code nowNanos}; returns how many it swept. */
  int sweepOwned(long nowNanos, StateCodec codec, boolean buckets) {
    List<Integer> owned = new ArrayList<>();
    for (Partition partition : partitions.getPartitions()) {
      if (partition.getOwner() != null
          && partition
              .getOwner()
              .getUuid()
              .equals(member.getCluster().getLocalMember().getUuid())) {
        owned.add(partition.getPartitionId());
      }
    }
    SweepProcessor sweep = new SweepProcessor(nowNanos, codec, buckets);
    for (int id : owned) {
      map.executeOnEntries(
          sweep, Predicates.partitionPredicate(partitionKeys[id], Predicates.alwaysTrue()));
    }
    return owned.size();
  }
}
