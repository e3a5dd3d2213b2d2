package dev.sluice.client;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.grid.GridRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Whether the grid answers right now, found out without waiting for the application's traffic.
 *
 * <h2>Why a connection is not enough</h2>
 *
 * A member that hangs (a stopped process, a network that drops packets, a long GC pause) keeps its
 * connections open: the Hazelcast client notices only when its heartbeat times out, a minute by
 * default, and until then a "connected" client waits on every call. So this probe asks: every half
 * call timeout it sends each member one peek (read-only, no state written, no backup, never
 * answered from a lease) on a key that member owns, and remembers when an answer last came.
 *
 * <pre>
 *   answering  ⇔  some member answered a probe within the last 2 × callTimeout
 *
 *   t         grid stops answering (last answer at about t)
 *   t + 2T    not answering                       (T = callTimeout)
 *   resumes   answering again at the next probe's answer, within T/2 and one round trip
 * </pre>
 *
 * <p>Why "some member" and not "every member": with one of three members hung, two thirds of the
 * keys are still decided by the grid and the rest by the failure policy within the timeout; taking
 * every client-mode node out of its load balancer at once would turn a partial outage into a full
 * one. When the whole grid hangs, nothing answers and the probe says so within 2T.
 *
 * <p>One probe per member is in flight at a time: a member that hangs is not sent more until its
 * last probe ends (Hazelcast's invocation timeout releases it). A probe costs one small invocation
 * per member per half timeout (about 40 a second per member with the default 50 ms).
 */
final class GridProbe implements AutoCloseable {
  /** Probes are peeks under this inline policy: nothing is counted or stored. */
  private static final PolicyRef PROBE = PolicyRef.inline(Policy.of(1, Duration.ofSeconds(1)));

  /** Probe keys tried at most per partition, to find one key owned by each partition. */
  private static final int KEY_TRIES_PER_PARTITION = 64;

  private final GridRateLimiter grid;
  private final long staleAfterNanos;
  private final LongSupplier nanoClock;
  private final AtomicLong lastAnswerNanos = new AtomicLong();
  private final Set<UUID> inFlight = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService ticks;
  private @Nullable Partition[] partitions;
  private @Nullable String[] keyOfPartition;

  GridProbe(GridRateLimiter grid, Duration callTimeout, LongSupplier nanoClock) {
    this.grid = grid;
    this.staleAfterNanos = 2 * callTimeout.toNanos();
    this.nanoClock = nanoClock;
    this.ticks =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-grid-probe");
              thread.setDaemon(true);
              return thread;
            });
    long periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), callTimeout.toNanos() / 2);
    ticks.scheduleWithFixedDelay(this::tick, 0, periodNanos, TimeUnit.NANOSECONDS);
  }

  /** Whether some member answered a probe within the last two call timeouts. */
  boolean answering() {
    long last = lastAnswerNanos.get();
    return last != 0 && nanoClock.getAsLong() - last <= staleAfterNanos;
  }

  @Override
  public void close() {
    ticks.shutdownNow();
  }

  private void tick() {
    try {
      if (!grid.ready().isDone() || !grid.hazelcast().getLifecycleService().isRunning()) {
        return;
      }
      for (Member member : grid.hazelcast().getCluster().getMembers()) {
        UUID id = member.getUuid();
        String key = keyOwnedBy(id);
        if (key == null || !inFlight.add(id)) {
          continue;
        }
        try {
          grid.peekAsync(PROBE, key)
              .whenComplete(
                  (decision, failure) -> {
                    inFlight.remove(id);
                    if (failure == null) {
                      lastAnswerNanos.accumulateAndGet(nanoClock.getAsLong(), Math::max);
                    }
                  });
        } catch (RuntimeException e) {
          inFlight.remove(id); // offline: no answer
        }
      }
    } catch (RuntimeException e) {
      // The instance is shutting down or offline: no answer this time.
    }
  }

  /** A probe key in a partition {@code member} owns now, or null if it owns none yet. */
  private @Nullable String keyOwnedBy(UUID member) {
    if (partitions == null) {
      learnPartitions();
    }
    Partition[] byId = partitions;
    String[] keys = keyOfPartition;
    for (int p = 0; p < byId.length; p++) {
      Member owner = byId[p].getOwner();
      if (owner != null && owner.getUuid().equals(member) && keys[p] != null) {
        return keys[p];
      }
    }
    return null;
  }

  /** One probe key per partition, found by trying keys until each partition has one. */
  private void learnPartitions() {
    HazelcastInstance hazelcast = grid.hazelcast();
    PartitionService service = hazelcast.getPartitionService();
    List<Partition> all = new ArrayList<>(service.getPartitions());
    Partition[] byId = new Partition[all.size()];
    for (Partition partition : all) {
      byId[partition.getPartitionId()] = partition;
    }
    String[] keys = new String[byId.length];
    int found = 0;
    for (int i = 0; found < keys.length && i < keys.length * KEY_TRIES_PER_PARTITION; i++) {
      String key = "sluice-probe-" + i;
      int p = service.getPartition(PROBE.stateKey(key)).getPartitionId();
      if (keys[p] == null) {
        keys[p] = key;
        found++;
      }
    }
    keyOfPartition = keys;
    partitions = byId;
  }
}
