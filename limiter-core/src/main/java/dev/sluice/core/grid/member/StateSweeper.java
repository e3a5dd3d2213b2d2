package dev.sluice.core.grid.member;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.logging.ILogger;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import com.hazelcast.query.Predicates;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Removes idle rule states from the partitions this member owns, every {@link #periodMillis()}: the
 * cleanup that keeps the state map bounded by the number of active keys, in place of a TTL on every
 * entry (docs/grid.md, "Cleanup").
 *
 * <h2>Why not a TTL</h2>
 *
 * Hazelcast keeps a per-entry TTL in its expiry system: a {@code ConcurrentHashMap} node, an {@code
 * ExpiryMetadataImpl} and table slots beside every entry, 73 to 81 bytes per copy against 24 for
 * the whole record (docs/memory.md). A sweep keeps nothing per entry: it asks each state's
 * algorithm whether the state still counts ({@link SweepProcessor}).
 *
 * <h2>A pass, and the bound it gives</h2>
 *
 * A pass visits the partitions this member owns one after the other, each in one partition-wide
 * step ({@code IMap.executeOnEntries} with a {@code PartitionPredicate}, public API only) that
 * holds that partition's thread while it looks at the partition's entries: about 3,700 at a million
 * keys over 271 partitions, a few milliseconds. Passes run with a fixed delay of P between the end
 * of one and the start of the next. A state written at {@code t} that counts for {@code u} more
 * ({@code untilFreshNanos} at that write) is removable from {@code t + u + 1 s} (the {@link
 * #MARGIN_NANOS}), and the next visit of its partition comes at most P + D later, D being the
 * longest pass:
 *
 * <pre>
 *   an idle key disappears by  t + u + 1 s + P + D      (its backup with the same step)
 * </pre>
 *
 * <h2>When it runs</h2>
 *
 * Once the member's rules copy has loaded: a state is judged by the policy that wrote it.
 */
public final class StateSweeper {
  /** How long past the instant a state stops counting it is still kept. */
  public static final long MARGIN_NANOS = 1_000_000_000L;

  /** Tries per partition to find a key that lands on it, as a partition predicate's target. */
  private static final int KEY_SEARCH_LIMIT = 10_000_000;

  private final MemberContext context;
  private final long periodMillis;
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong removed = new AtomicLong();
  private volatile long longestPassNanos;
  private volatile @Nullable ScheduledExecutorService executor;
  private volatile @Nullable HazelcastInstance member;
  private Object @Nullable [] partitionKeys;

  StateSweeper(MemberContext context, long periodMillis) {
    this.context = context;
    this.periodMillis = periodMillis;
  }

  public long periodMillis() {
    return periodMillis;
  }

  /** Starts the passes on a daemon thread of their own; once. */
  synchronized void start(HazelcastInstance hazelcast) {
    if (executor != null) {
      return;
    }
    member = hazelcast;
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "sluice-sweep-" + hazelcast.getName());
              thread.setDaemon(true);
              return thread;
            });
    scheduler.scheduleWithFixedDelay(
        this::scheduledPass, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    executor = scheduler;
  }

  /** Stops the passes; a pass under way ends at its next partition. */
  synchronized void stop() {
    ScheduledExecutorService scheduler = executor;
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    member = null;
  }

  private void scheduledPass() {
    try {
      sweepOwnedPartitions();
    } catch (HazelcastInstanceNotActiveException e) {
      stop();
    } catch (RuntimeException e) {
      // The next pass tries again: a sweep only ever removes what no longer counts.
      HazelcastInstance hazelcast = member;
      if (hazelcast != null) {
        ILogger log = hazelcast.getLoggingService().getLogger(StateSweeper.class);
        log.warning("Sluice: a sweep of the state map failed; the next pass retries", e);
      }
    }
  }

  /**
   * One pass over the partitions this member owns, on the calling thread; returns how many states
   * it removed, or -1 if it did not sweep (the member's rules are still loading, or the member is
   * stopping).
   */
  long sweepOwnedPartitions() {
    HazelcastInstance hazelcast = member;
    if (hazelcast == null || !context.rulesLoaded()) {
      return -1;
    }
    long start = System.nanoTime();
    long removedBefore = removed.get();
    PartitionService partitions = hazelcast.getPartitionService();
    Object[] keys = partitionKeys(partitions);
    IMap<String, StateValue> states = hazelcast.getMap(GridNames.STATE_MAP);
    UUID self = hazelcast.getCluster().getLocalMember().getUuid();
    for (Partition partition : partitions.getPartitions()) {
      if (this.member == null) {
        return -1;
      }
      Member owner = partition.getOwner();
      if (owner == null || !owner.getUuid().equals(self)) {
        continue;
      }
      // A partition that moved since is swept by its new owner, on its clock and rules copy.
      states.executeOnEntries(
          new SweepProcessor(),
          Predicates.partitionPredicate(
              keys[partition.getPartitionId()], Predicates.<String, StateValue>alwaysTrue()));
    }
    longestPassNanos = Math.max(longestPassNanos, System.nanoTime() - start);
    passes.incrementAndGet();
    return removed.get() - removedBefore;
  }

  /** A key on each partition, for a predicate that confines a step to that partition. */
  private synchronized Object[] partitionKeys(PartitionService partitions) {
    Object[] keys = partitionKeys;
    if (keys != null) {
      return keys;
    }
    int count = partitions.getPartitions().size();
    keys = new Object[count];
    int found = 0;
    for (int i = 0; found < count && i < KEY_SEARCH_LIMIT; i++) {
      String key = "sluice.sweep." + i;
      int id = partitions.getPartition(key).getPartitionId();
      if (keys[id] == null) {
        keys[id] = key;
        found++;
      }
    }
    if (found < count) {
      throw new IllegalStateException("no key found for " + (count - found) + " partitions");
    }
    partitionKeys = keys;
    return keys;
  }

  /** Passes completed on this member. */
  public long passes() {
    return passes.get();
  }

  /** Counts states a sweep step removed on this member (whoever started the step). */
  void countRemoved(int states) {
    removed.addAndGet(states);
  }

  /** States removed on this member by sweep steps. */
  public long removed() {
    return removed.get();
  }

  /** How long the longest completed pass took. */
  public long longestPassNanos() {
    return longestPassNanos;
  }
}
