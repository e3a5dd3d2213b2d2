package dev.sluice.core.grid;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Opportunistic batching for one lane of one owner (member): requests that arrive while an
 * invocation is in flight accumulate, and go out together, as one {@link BatchDelivery}, the moment
 * it returns. No timer: an idle lane sends at once, so a lone request pays no added latency, and
 * under load the batch size grows with the load (the invocation cost is paid once per batch instead
 * of once per request).
 *
 * <h2>Order</h2>
 *
 * A key always maps to the same lane and a lane has at most one invocation in flight, so requests
 * on one key are decided in the order they were submitted. Within a batch, all requests on one key
 * travel in one {@link KeyRequests} and are decided in order in one atomic step. A request on a key
 * already in the batch under a different inline policy waits for the next batch.
 *
 * <h2>Why it is correct</h2>
 *
 * Submitting enqueues then tries to take the lane; finishing an invocation releases the lane then
 * tries to take it again. Whichever of the two runs second sees both the queued request and the
 * free lane, so no request is stranded.
 */
final class OwnerBatcher {
  private final BatchDelivery delivery;
  private final Executor callbacks;
  private final int maxKeysPerBatch;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  // Written only by the holder of the lane, read by anyone.
  private final ConcurrentLinkedDeque<Pending> deferred = new ConcurrentLinkedDeque<>();
  private final AtomicBoolean busy = new AtomicBoolean();

  OwnerBatcher(BatchDelivery delivery, Executor callbacks, int maxKeysPerBatch) {
    this.delivery = delivery;
    this.callbacks = callbacks;
    this.maxKeysPerBatch = maxKeysPerBatch;
  }

  void submit(Pending pending) {
    queue.add(pending);
    trySend();
  }

  void submitAll(List<Pending> pendings) {
    queue.addAll(pendings);
    trySend();
  }

  private void trySend() {
    while (!queue.isEmpty() || hasDeferred()) {
      if (!busy.compareAndSet(false, true)) {
        return;
      }
      Map<String, List<Pending>> batch = drain();
      if (!batch.isEmpty()) {
        send(batch);
        return;
      }
      busy.set(false);
    }
  }

  private boolean hasDeferred() {
    return !deferred.isEmpty();
  }

  /** Takes up to {@link #maxKeysPerBatch} keys' requests, keeping each key's order. */
  private Map<String, List<Pending>> drain() {
    Map<String, List<Pending>> batch = new LinkedHashMap<>();
    Set<String> blocked = new HashSet<>();
    List<Pending> putBack = new ArrayList<>();
    Pending next;
    while ((next = deferred.isEmpty() ? queue.poll() : deferred.poll()) != null) {
      String key = next.stateKey();
      List<Pending> forKey = batch.get(key);
      if (blocked.contains(key) || (forKey != null && !forKey.get(0).sameRequestsAs(next))) {
        blocked.add(key);
        putBack.add(next);
        continue;
      }
      if (forKey == null) {
        if (batch.size() >= maxKeysPerBatch) {
          putBack.add(next);
          break;
        }
        forKey = new ArrayList<>(2);
        batch.put(key, forKey);
      }
      forKey.add(next);
    }
    for (int i = putBack.size() - 1; i >= 0; i--) {
      deferred.addFirst(putBack.get(i));
    }
    return batch;
  }

  private void send(Map<String, List<Pending>> batch) {
    KeyRequests[] requests = new KeyRequests[batch.size()];
    int i = 0;
    for (List<Pending> forKey : batch.values()) {
      Pending first = forKey.get(0);
      long[] permits = new long[forKey.size()];
      for (int j = 0; j < permits.length; j++) {
        permits[j] = forKey.get(j).permits();
      }
      requests[i++] =
          new KeyRequests(
              first.stateKey(), first.partitionId(), first.rule(), first.policy(), permits);
    }
    SENDING.set(Boolean.TRUE);
    try {
      // A plain whenComplete, no executor: it runs where the delivery completes (Hazelcast's
      // default async executor for submitToKeys, the callback executor for Sluice's own batches,
      // never a partition or network thread), and releasing the lane, sending the next batch and
      // answering this one all happen there. Should the answer already be there (completion
      // inline, on this thread), move it to the callback executor, so sends never recurse.
      delivery
          .deliver(requests)
          .whenComplete(
              (outcomes, failure) -> {
                if (SENDING.get()) {
                  callbacks.execute(() -> finish(batch, outcomes, failure));
                } else {
                  finish(batch, outcomes, failure);
                }
              });
    } catch (RuntimeException e) {
      callbacks.execute(() -> finish(batch, null, e));
    } finally {
      SENDING.set(Boolean.FALSE);
    }
  }

  private static final ThreadLocal<Boolean> SENDING = ThreadLocal.withInitial(() -> Boolean.FALSE);

  private void finish(
      Map<String, List<Pending>> batch, Map<String, KeyOutcome> outcomes, Throwable failure) {
    busy.set(false);
    try {
      trySend();
    } finally {
      GridRateLimiter.complete(batch, outcomes, failure);
    }
  }
}
