package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.map.IMap;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.grid.wire.GridNames;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The grid's receipt secret, the same on every member and client of a cluster, so that a receipt a
 * check answered through one node is accepted by a release through any other, a client-mode node
 * and an SDK client included (they already hold the grid's data: whoever may join as a member or a
 * client may read it).
 *
 * <h2>Where it lives</h2>
 *
 * One entry of the map {@value GridNames#SECRETS_MAP}, backed up on every member (up to Hazelcast's
 * 6): the first member or client to ask writes 32 random bytes with {@code putIfAbsent}, and every
 * other reads what won. Each instance keeps a copy, and reads the entry again when it may have
 * changed:
 *
 * <ul>
 *   <li>after a split brain heals ({@code MERGED}): the side that joins the other keeps the other's
 *       secret (the map's default merge keeps the entry the joined cluster has), and its members'
 *       copies would otherwise seal receipts nobody else accepts;
 *   <li>when a client connects again (to a cluster that may have restarted with a new secret);
 *   <li>when a receipt's seal does not hold here, at most once a second: a copy read before any of
 *       the above reached this instance.
 * </ul>
 *
 * A cluster that loses the entry with every member (a full restart) makes a new one: receipts of
 * the old one are refused, and there is nothing left for them to give back.
 */
final class ClusterReceiptKey implements AutoCloseable {
  static final String ENTRY = "receipts";
  private static final long REREAD_NANOS = 1_000_000_000L;

  private final HazelcastInstance hazelcast;
  private final IMap<String, byte[]> secrets;
  private final UUID lifecycleListener;
  private final AtomicLong lastReadNanos = new AtomicLong();
  private volatile ReceiptKey current;

  private ClusterReceiptKey(HazelcastInstance hazelcast) {
    this.hazelcast = hazelcast;
    this.secrets = hazelcast.getMap(GridNames.SECRETS_MAP);
    this.current = read();
    this.lifecycleListener =
        hazelcast
            .getLifecycleService()
            .addLifecycleListener(
                event -> {
                  if (event.getState() == LifecycleState.MERGED
                      || event.getState() == LifecycleState.CLIENT_CONNECTED) {
                    // Not on Hazelcast's event thread: the read is a call to the cluster.
                    ForkJoinPool.commonPool().execute(this::reread);
                  }
                });
  }

  /**
   * The grid's secret, read (or written, if this is the first to ask) now.
   *
   * @throws RuntimeException as a map call does while the cluster cannot be reached
   */
  static ClusterReceiptKey open(HazelcastInstance hazelcast) {
    return new ClusterReceiptKey(hazelcast);
  }

  /** The key new receipts are sealed with. */
  ReceiptKey current() {
    return current;
  }

  /**
   * Whether {@code receipt} was sealed with the grid's secret: with the copy held here, or else
   * with the entry as read again now (at most once a second).
   */
  boolean issuedHere(Receipt receipt) {
    if (receipt.sealedWith(current)) {
      return true;
    }
    long now = System.nanoTime();
    long last = lastReadNanos.get();
    if (now - last < REREAD_NANOS || !lastReadNanos.compareAndSet(last, now)) {
      return false;
    }
    reread();
    return receipt.sealedWith(current);
  }

  private void reread() {
    try {
      current = read();
    } catch (RuntimeException unreachable) {
      // Keep the copy: the next change of membership or failed seal reads again.
    }
  }

  private ReceiptKey read() {
    lastReadNanos.set(System.nanoTime());
    byte[] fresh = ReceiptKey.newSecret();
    byte[] existing = secrets.putIfAbsent(ENTRY, fresh);
    ReceiptKey key = new ReceiptKey(existing == null ? fresh : existing); // copies the bytes
    Arrays.fill(fresh, (byte) 0);
    return key;
  }

  @Override
  public void close() {
    try {
      hazelcast.getLifecycleService().removeLifecycleListener(lifecycleListener);
    } catch (RuntimeException e) {
      // The instance is already shut down: nothing left to unsubscribe from.
    }
  }
}
