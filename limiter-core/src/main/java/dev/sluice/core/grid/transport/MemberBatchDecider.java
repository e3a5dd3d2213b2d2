package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceImpl;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ConcurrencyUtil;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.MapServiceContext;
import com.hazelcast.map.impl.operation.MapOperation;
import com.hazelcast.map.impl.operation.MapOperationProvider;
import com.hazelcast.partition.PartitioningStrategy;
import com.hazelcast.spi.impl.NodeEngine;
import com.hazelcast.spi.impl.operationservice.impl.InvocationFuture;
import dev.sluice.core.grid.member.DecideProcessor;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Decides a batch of keys from a member: one single-key {@link DecideProcessor} operation per key,
 * each invoked on the partition that owns the key, with one future for the whole batch. Serves a
 * client's batch message ({@link DecideBatchMessageTask}) and an embedded member's batches (the
 * batching layer's lanes, {@link dev.sluice.core.backend.BatchingBackend}).
 *
 * <h2>Why not the public map API</h2>
 *
 * {@code submitToKeys} runs a batch as one partition-iterating operation that fans out and merges,
 * with asynchronous backups; one {@code submitToKey} per key is exactly the right work, but each of
 * its futures completes through a task on Hazelcast's default executor, a thread hand-off per key.
 * Here each key's invocation is built the way {@code submitToKey} builds it (the map's operation
 * provider, its partitioning strategy) and its future is followed on the thread that completes it:
 * the partition thread for a key owned here, the response thread for one owned elsewhere. The
 * callbacks only store a result and count down, so they are cheap enough for those threads. Each
 * key's backup is synchronous: its invocation completes when the backup has acknowledged.
 *
 * <p>It uses Hazelcast's member internals, compiled against the pinned version.
 */
final class MemberBatchDecider {
  private final NodeEngine nodeEngine;
  private final SerializationService serialization;
  private final HazelcastInstance hazelcast;

  MemberBatchDecider(NodeEngine nodeEngine) {
    this.nodeEngine = nodeEngine;
    this.serialization = nodeEngine.getSerializationService();
    this.hazelcast = nodeEngine.getHazelcastInstance();
  }

  /** A decider for {@code hazelcast}, or null if it is not a member. */
  static @Nullable MemberBatchDecider of(HazelcastInstance hazelcast) {
    HazelcastInstanceImpl member =
        hazelcast instanceof HazelcastInstanceProxy proxy
            ? proxy.getOriginal()
            : hazelcast instanceof HazelcastInstanceImpl impl ? impl : null;
    return member == null ? null : new MemberBatchDecider(member.node.getNodeEngine());
  }

  /**
   * Decides each key's requests on its owner. The future holds one result per request, in order:
   * the serialized {@link dev.sluice.core.decision.KeyOutcome} ({@code serialized}, for sending on)
   * or the object. If any key fails, the future fails with the first key's failure, but only once
   * every key's operation has finished: the other keys are then counted (and backed up), and a
   * batcher that sends the next batch on the same lane when this one answers never has two batches
   * in flight.
   *
   * @param caller the client the batch came from, or null for this member
   */
  CompletableFuture<Object[]> decideEach(
      String mapName, DecideProcessor batch, @Nullable UUID caller, boolean serialized) {
    CompletableFuture<Object[]> answer = new CompletableFuture<>();
    int size = batch.size();
    if (size == 0) {
      answer.complete(new Object[0]);
      return answer;
    }
    MapServiceContext maps =
        nodeEngine.<MapService>getService(MapService.SERVICE_NAME).getMapServiceContext();
    MapOperationProvider operations = maps.getMapOperationProvider(mapName);
    PartitioningStrategy<?> strategy = maps.getMapContainer(mapName).getPartitioningStrategy();
    Object[] outcomes = new Object[size];
    AtomicInteger outstanding = new AtomicInteger(size);
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    for (int i = 0; i < size; i++) {
      int index = i;
      Data key = serialization.toData(batch.key(i), strategy);
      DecideProcessor processor = batch.forKey(i);
      processor.setHazelcastInstance(hazelcast);
      MapOperation operation = operations.createEntryOperation(mapName, key, processor);
      if (caller != null) {
        operation.setCallerUuid(caller);
      }
      InvocationFuture<Object> decided =
          nodeEngine
              .getOperationService()
              .createInvocationBuilder(
                  MapService.SERVICE_NAME,
                  operation,
                  nodeEngine.getPartitionService().getPartitionId(key))
              .setResultDeserialized(!serialized)
              .invoke();
      decided.whenCompleteAsync(
          (outcome, failure) -> {
            if (failure != null) {
              firstFailure.compareAndSet(null, failure);
            } else {
              outcomes[index] = outcome;
            }
            if (outstanding.decrementAndGet() == 0) {
              Throwable failed = firstFailure.get();
              if (failed != null) {
                answer.completeExceptionally(failed);
              } else {
                answer.complete(outcomes);
              }
            }
          },
          ConcurrencyUtil.CALLER_RUNS);
    }
    return answer;
  }
}
