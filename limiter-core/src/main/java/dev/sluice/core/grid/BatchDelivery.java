package dev.sluice.core.grid;

import com.hazelcast.map.IMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * How an {@link OwnerBatcher} gets one batch (one {@link KeyRequests} per key, all owned by one
 * member) decided: the outcomes by state key, or one failure for the batch.
 */
@FunctionalInterface
interface BatchDelivery {
  CompletionStage<Map<String, KeyOutcome>> deliver(KeyRequests[] requests);

  /** One {@code submitToKeys}: Hazelcast's own multi-key path (asynchronous backups). */
  static BatchDelivery submitToKeys(IMap<String, GridState> map) {
    return requests -> {
      Set<String> keys = new LinkedHashSet<>(requests.length * 2);
      for (KeyRequests r : requests) {
        keys.add(r.key);
      }
      return map.submitToKeys(keys, new AcquireProcessor(requests));
    };
  }

  /**
   * From an embedded member: one operation per key, started here ({@link MemberBatchDecider}). The
   * batch completes on {@code callbacks}, one hand-off per batch: the last key finishes on a
   * partition thread, where neither the next batch (an invocation on other partitions) nor the
   * callers' own callbacks may run. A failed batch takes the same hand-off ({@code thenApplyAsync}
   * would pass a failure on from the partition thread).
   */
  static BatchDelivery fromMember(MemberBatchDecider decider, String mapName, Executor callbacks) {
    return requests -> {
      CompletableFuture<Map<String, KeyOutcome>> answer = new CompletableFuture<>();
      decider
          .decideEach(mapName, requests, null, false)
          .whenCompleteAsync(
              (outcomes, failure) -> {
                if (failure != null) {
                  answer.completeExceptionally(failure);
                  return;
                }
                Map<String, KeyOutcome> byKey = new HashMap<>(requests.length * 2);
                for (int i = 0; i < requests.length; i++) {
                  byKey.put(requests[i].key, (KeyOutcome) outcomes[i]);
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
    return requests -> {
      if (invoker.isUnsupported()) {
        return fallback.deliver(requests);
      }
      return invoker
          .decide(owner, requests, callbacks)
          .handle(
              (outcomes, failure) ->
                  failure == null
                      ? CompletableFuture.completedFuture(outcomes)
                      : ClientBatchInvoker.isRefusal(failure)
                          ? fallback.deliver(requests)
                          : CompletableFuture.<Map<String, KeyOutcome>>failedFuture(failure))
          .thenCompose(next -> next);
    };
  }
}
