package dev.sluice.core.grid.transport;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.StateValue;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

/**
 * The transport that uses Hazelcast's public map API only: {@code executeOnKey} on the caller's
 * thread, {@code submitToKey} for asynchronous and timed calls, {@code submitToKeys} for a batch
 * (one operation per member that Hazelcast fans out per partition; its backups are asynchronous,
 * docs/grid.md). Slower than {@link InternalTransport} by the hand-offs the internals skip, and
 * independent of anything Hazelcast does not promise.
 */
final class PublicApiTransport implements GridTransport {
  private final IMap<String, StateValue> map;

  PublicApiTransport(IMap<String, StateValue> map) {
    this.map = map;
  }

  @Override
  public <R> R invoke(String key, EntryProcessor<String, StateValue, R> processor) {
    return map.executeOnKey(key, processor);
  }

  @Override
  public <R> R invoke(
      String key, EntryProcessor<String, StateValue, R> processor, long timeoutNanos)
      throws TimeoutException {
    return Futures.awaitWithin(map.submitToKey(key, processor).toCompletableFuture(), timeoutNanos);
  }

  @Override
  public <R> CompletableFuture<R> invokeAsync(
      String key, EntryProcessor<String, StateValue, R> processor) {
    return map.submitToKey(key, processor).toCompletableFuture();
  }

  @Override
  public CompletionStage<Map<String, KeyOutcome>> deliver(
      UUID owner, DecideProcessor batch, Executor completions) {
    return BatchDelivery.on(BatchDelivery.submitToKeys(map), completions).deliver(batch);
  }

  /** Keys of a batch in order, for {@code submitToKeys}. */
  static Set<String> keys(DecideProcessor batch) {
    Set<String> keys = new LinkedHashSet<>(batch.size() * 2);
    for (int i = 0; i < batch.size(); i++) {
      keys.add(batch.key(i));
    }
    return keys;
  }
}
