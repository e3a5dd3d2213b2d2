package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.MigrationListener;
import com.hazelcast.partition.MigrationState;
import com.hazelcast.partition.ReplicaMigrationEvent;
import dev.sluice.core.stats.NodeStats;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Where a member keeps what its console stats task reads: the node's {@link NodeStats}, and the
 * partition migrations the member has seen, both in the member's user context (public API; the task
 * finds them there through {@link com.hazelcast.core.HazelcastInstanceAware}).
 */
public final class GridStats {
  static final String STATS_KEY = "dev.sluice.nodeStats";
  static final String MIGRATIONS_KEY = "dev.sluice.migrations";

  private GridStats() {}

  /** Partition replica migrations a member saw complete or fail since it started. */
  static final class Migrations implements MigrationListener {
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();

    long completed() {
      return completed.sum();
    }

    long failed() {
      return failed.sum();
    }

    @Override
    public void migrationStarted(MigrationState state) {}

    @Override
    public void migrationFinished(MigrationState state) {}

    @Override
    public void replicaMigrationCompleted(ReplicaMigrationEvent event) {
      completed.increment();
    }

    @Override
    public void replicaMigrationFailed(ReplicaMigrationEvent event) {
      failed.increment();
    }
  }

  /** Makes {@code stats} and this member's migrations readable by {@link NodeStatsTask}. */
  public static void install(HazelcastInstance member, NodeStats stats) {
    member.getUserContext().put(STATS_KEY, stats);
    Migrations migrations = new Migrations();
    if (member.getUserContext().putIfAbsent(MIGRATIONS_KEY, migrations) == null) {
      member.getPartitionService().addMigrationListener(migrations);
    }
  }

  static @Nullable NodeStats statsOf(HazelcastInstance member) {
    return member.getUserContext().get(STATS_KEY) instanceof NodeStats stats ? stats : null;
  }

  static @Nullable Migrations migrationsOf(HazelcastInstance member) {
    return member.getUserContext().get(MIGRATIONS_KEY) instanceof Migrations m ? m : null;
  }
}
