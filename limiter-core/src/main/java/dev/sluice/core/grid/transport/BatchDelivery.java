package dev.sluice.core.grid.transport;

import com.hazelcast.map.IMap;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.StateValue;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * How one batch (a {@link DecideProcessor} with one command per key, all owned by one member) gets
 * decided: the outcomes by state key, or one failure for the batch.
 */
@FunctionalInterface
interface BatchDelivery {
  CompletionStage<Map<String, KeyOutcome>> deliver(DecideProcessor batch);

  /**
   * {@code delivery}, its answer moved to a task on {@code completions}: it completes on
   * Hazelcast's default async executor, so where that is {@code completions} it stays.
   */
  static BatchDelivery on(BatchDelivery delivery, Executor completions) {
    if (completions == AsyncCallbackExecutor.hazelcastDefault()) {
      return delivery;
    }
    return batch ->
        delivery.deliver(batch).whenCompleteAsync((outcomes, failure) -> {}, completions);
  }

  /** One {@code submitToKeys}: Hazelcast's own multi-key path (asynchronous backups). */
  static BatchDelivery submitToKeys(IMap<String, StateValue> map) {
    return batch -> map.submitToKeys(PublicApiTransport.keys(batch), batch);
  }

  /**
   * From an embedded member: one operation per key, started here ({@link MemberBatchDecider}). The
   * batch completes on {@code callbacks}, one hand-off per batch: the last key finishes on a
   * partition thread, where neither the next batch (an invocation on other partitions) nor the
   * callers' own callbacks may run. A failed batch takes the same hand-off ({@code thenApplyAsync}
   * would pass a failure on from the partition thread).
   */
  static BatchDelivery fromMember(MemberBatchDecider decider, String mapName, Executor callbacks) {
    return batch -> {
      CompletableFuture<Map<String, KeyOutcome>> answer = new CompletableFuture<>();
      decider
          .decideEach(mapName, batch, null, false)
          .whenCompleteAsync(
              (outcomes, failure) -> {
                if (failure != null) {
                  answer.completeExceptionally(failure);
                  return;
                }
                Map<String, KeyOutcome> byKey = new HashMap<>(batch.size() * 2);
                for (int i = 0; i < batch.size(); i++) {
                  byKey.put(batch.key(i), (KeyOutcome) outcomes[i]);
                }
                answer.complete(byKey);
              },
              callbacks);
      return answer;
    };
  }

  /**
   * From a client: one Sluice batch message to {@code owner} ({@link ClientBatchInvoker}), answered
   * on {@code callbacks}; to a member that does not know the message, {@code fallback} (nothing was
   * counted by the refusal). Only this batch's own refusal sends it the other way: a batch that
   * failed otherwise may have been counted in part, even if meanwhile another member refused the
   * message and turned the invoker {@linkplain ClientBatchInvoker#isUnsupported unsupported}.
   */
  static BatchDelivery fromClient(
      ClientBatchInvoker invoker, UUID owner, Executor callbacks, BatchDelivery fallback) {
    return batch -> {
      if (invoker.isUnsupported()) {
        return fallback.deliver(batch);
      }
      return invoker
          .decide(owner, batch, callbacks)
          .handle(
              (outcomes, failure) ->
                  failure == null
                      ? CompletableFuture.completedFuture(outcomes)
                      : ClientBatchInvoker.isRefusal(failure)
                          ? fallback.deliver(batch)
                          : CompletableFuture.<Map<String, KeyOutcome>>failedFuture(failure))
          .thenCompose(next -> next);
    };
  }
}
