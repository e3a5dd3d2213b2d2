package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.StateValue;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The default transport: the public map API where it is as fast as anything, and Hazelcast's
 * internals where they measurably save work (docs/grid.md):
 *
 * <ul>
 *   <li>a client's timed call waits on the invocation's own future ({@link ClientKeyInvoker}), one
 *       thread hand-off fewer per decision than {@code submitToKey(...).get(timeout)};
 *   <li>a client's batch travels as one Sluice message to its owner ({@link ClientBatchInvoker},
 *       {@link DecideBatchMessageTask}), each key one single-key operation with a synchronous
 *       backup; a member without that message gets {@code submitToKeys};
 *   <li>an embedded member's batch starts one operation per key itself ({@link
 *       MemberBatchDecider}), followed on the thread that completes it.
 * </ul>
 */
final class InternalTransport implements GridTransport {
  private static final UUID UNKNOWN_OWNER = new UUID(0, 0);

  private final IMap<String, StateValue> map;
  private final @Nullable ClientKeyInvoker clientInvoker;
  private final @Nullable ClientBatchInvoker batchInvoker;
  private final @Nullable MemberBatchDecider memberDecider;
  private final BatchDelivery submitToKeys;

  InternalTransport(HazelcastInstance hazelcast, IMap<String, StateValue> map) {
    this.map = map;
    this.clientInvoker = ClientKeyInvoker.of(hazelcast, map.getName());
    this.batchInvoker = ClientBatchInvoker.of(hazelcast, map.getName());
    this.memberDecider = MemberBatchDecider.of(hazelcast);
    this.submitToKeys = BatchDelivery.submitToKeys(map);
  }

  @Override
  public <R> R invoke(String key, EntryProcessor<String, StateValue, R> processor) {
    return map.executeOnKey(key, processor);
  }

  @Override
  public <R> R invoke(
      String key, EntryProcessor<String, StateValue, R> processor, long timeoutNanos)
      throws TimeoutException {
    try {
      return clientInvoker != null
          ? clientInvoker.submitToKey(key, processor, timeoutNanos, TimeUnit.NANOSECONDS)
          : map.submitToKey(key, processor)
              .toCompletableFuture()
              .get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the grid", e);
    } catch (ExecutionException e) {
      throw Futures.rethrown(e);
    }
  }

  @Override
  public <R> CompletableFuture<R> invokeAsync(
      String key, EntryProcessor<String, StateValue, R> processor) {
    return map.submitToKey(key, processor).toCompletableFuture();
  }

  @Override
  public CompletionStage<Map<String, KeyOutcome>> deliver(
      UUID owner, DecideProcessor batch, Executor completions) {
    if (memberDecider != null) {
      return BatchDelivery.fromMember(memberDecider, map.getName(), completions).deliver(batch);
    }
    if (batchInvoker != null && !owner.equals(UNKNOWN_OWNER)) {
      return BatchDelivery.fromClient(
              batchInvoker, owner, completions, BatchDelivery.on(submitToKeys, completions))
          .deliver(batch);
    }
    return BatchDelivery.on(submitToKeys, completions).deliver(batch);
  }
}
