package dev.sluice.core.grid;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.grid.wire.StateValue;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast objects a grid runtime works with (the proxies of the state and rules maps, the
 * transport, the partition table, the grid's receipt secret), made as soon as the instance can make
 * them.
 *
 * <h2>Why not in the constructor</h2>
 *
 * A member makes them at once. A Hazelcast client cannot before it has reached the cluster:
 * creating a map proxy is a call to the cluster, which fails while the client is offline and,
 * against a cluster that hangs, waits for the invocation timeout. An application must be able to
 * start while the grid is away (a deploy during an outage) and still answer by its failure policy
 * from the first call, so a client's objects are made on a background thread: at once if it can,
 * again each time the client connects, and once a second while it is connected and still cannot. (A
 * client that is connected when the runtime is made, the usual case, makes them at once; only a
 * cluster that hangs at that very moment would hold the constructor up, for the invocation
 * timeout.) Until then {@link #get()} fails at once with {@link HazelcastClientOfflineException},
 * what the client itself throws while offline, so callers treat both alike.
 *
 * <pre>
 *   new GridRateLimiter(client)   ─▶ returns at once; thread "sluice-grid-wiring" starts
 *   client offline                   get() throws HazelcastClientOfflineException
 *   CLIENT_CONNECTED              ─▶ proxies, transport, partition table made; ready() completes
 *   later disconnects             ─▶ nothing here: Hazelcast re-creates proxies on reconnect
 * </pre>
 */
final class GridWiring implements AutoCloseable {

  /** The objects, once made. */
  record Objects(
      IMap<String, StateValue> states,
      IMap<String, RuleRecord> rules,
      GridTransport transport,
      Partition[] partitionsById,
      ClusterReceiptKey receiptKey) {}

  private static final long RETRY_MILLIS = 1_000;

  private final HazelcastInstance hazelcast;
  private final GridRateLimiter.Options options;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final Semaphore connected = new Semaphore(0);
  private volatile @Nullable Objects objects;
  private volatile boolean closed;
  private volatile @Nullable UUID lifecycleListener;

  GridWiring(HazelcastInstance hazelcast, GridRateLimiter.Options options) {
    this.hazelcast = hazelcast;
    this.options = options;
    if (isMember(hazelcast)) {
      objects = make();
      ready.complete(null);
      return;
    }
    try {
      // A client already connected makes them now (a few milliseconds); one offline fails at once.
      objects = make();
      ready.complete(null);
      return;
    } catch (RuntimeException notYet) {
      // Offline: in the background, below.
    }
    lifecycleListener =
        hazelcast
            .getLifecycleService()
            .addLifecycleListener(
                event -> {
                  if (event.getState() == LifecycleState.CLIENT_CONNECTED) {
                    connected.release();
                  }
                });
    Thread thread = new Thread(this::makeWhenConnected, "sluice-grid-wiring");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * The objects.
   *
   * @throws HazelcastClientOfflineException if a client has not reached the cluster yet
   */
  Objects get() {
    Objects made = objects;
    if (made == null) {
      throw new HazelcastClientOfflineException();
    }
    return made;
  }

  /** Completes once the objects are made: at once on a member, on first contact on a client. */
  CompletableFuture<Void> ready() {
    return ready;
  }

  @Override
  public void close() {
    closed = true;
    connected.release();
    Objects made = objects;
    if (made != null) {
      made.receiptKey().close();
    }
    UUID listener = lifecycleListener;
    if (listener != null) {
      try {
        hazelcast.getLifecycleService().removeLifecycleListener(listener);
      } catch (RuntimeException e) {
        // The instance is already shut down: nothing left to unsubscribe from.
      }
    }
  }

  private void makeWhenConnected() {
    while (!closed && hazelcast.getLifecycleService().isRunning()) {
      try {
        objects = make();
        ready.complete(null);
        return;
      } catch (RuntimeException notYet) {
        // Offline, or connected but the partition table or a proxy is not there yet.
      }
      try {
        connected.tryAcquire(RETRY_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private Objects make() {
    List<Partition> all = new ArrayList<>(hazelcast.getPartitionService().getPartitions());
    if (all.isEmpty()) {
      throw new HazelcastClientOfflineException();
    }
    Partition[] partitionsById = new Partition[all.size()];
    for (Partition partition : all) {
      partitionsById[partition.getPartitionId()] = partition;
    }
    IMap<String, StateValue> states = hazelcast.getMap(GridNames.STATE_MAP);
    IMap<String, RuleRecord> rules = hazelcast.getMap(GridNames.RULES_MAP);
    GridTransport transport = GridTransport.of(options.transport(), hazelcast, GridNames.STATE_MAP);
    return new Objects(states, rules, transport, partitionsById, ClusterReceiptKey.open(hazelcast));
  }

  static boolean isMember(HazelcastInstance hazelcast) {
    try {
      return hazelcast.getLocalEndpoint() instanceof Member;
    } catch (RuntimeException e) {
      return false; // a client that cannot tell its own endpoint yet
    }
  }
}
