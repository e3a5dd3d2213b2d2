package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds the partition thread that owns a key of the state map until closed: a grid that does not
 * answer, for tests of call timeouts. Only one hold at a time.
 */
public final class PartitionHold implements AutoCloseable {
  private static volatile CountDownLatch entered = new CountDownLatch(1);
  private static volatile CountDownLatch release = new CountDownLatch(1);

  private final CompletableFuture<Boolean> held;

  private PartitionHold(CompletableFuture<Boolean> held) {
    this.held = held;
  }

  /**
   * Holds {@code stateKey}'s partition thread; returns once it is held. {@code owner} must own the
   * key, so the holding processor runs locally and is never serialized.
   */
  public static PartitionHold on(HazelcastInstance owner, String stateKey)
      throws InterruptedException {
    entered = new CountDownLatch(1);
    release = new CountDownLatch(1);
    IMap<String, StateValue> states = owner.getMap(GridNames.STATE_MAP);
    PartitionHold hold =
        new PartitionHold(states.submitToKey(stateKey, new Holder()).toCompletableFuture());
    if (!entered.await(30, TimeUnit.SECONDS)) {
      hold.close();
      throw new IllegalStateException("the partition of " + stateKey + " was not held in 30 s");
    }
    return hold;
  }

  /** The member of {@code members} that owns {@code stateKey}. */
  public static HazelcastInstance ownerOf(Iterable<HazelcastInstance> members, String stateKey) {
    HazelcastInstance any = members.iterator().next();
    var owner = any.getPartitionService().getPartition(stateKey).getOwner();
    for (HazelcastInstance member : members) {
      if (member.getCluster().getLocalMember().getUuid().equals(owner.getUuid())) {
        return member;
      }
    }
    throw new IllegalStateException("no member owns " + stateKey);
  }

  @Override
  public void close() {
    release.countDown();
    held.join();
  }

  private static final class Holder implements EntryProcessor<String, StateValue, Boolean> {
    @Override
    public Boolean process(Map.Entry<String, StateValue> entry) {
      entered.countDown();
      try {
        return release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    @Override
    public EntryProcessor<String, StateValue, Boolean> getBackupProcessor() {
      return null;
    }
  }
}
