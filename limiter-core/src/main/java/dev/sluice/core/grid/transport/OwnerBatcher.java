package dev.sluice.core.grid.transport;

import dev.sluice.core.grid.DecideProcessor;
import dev.sluice.core.pipeline.Futures;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOp;
import dev.sluice.core.pipeline.KeyOutcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

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
 * travel as one {@link KeyCommand} (their operations one after another) and are decided in order in
 * one atomic step; each request then gets its own slice of the key's outcome. A key's state key
 * names its rule or inline policy, so requests on one key share one, except for an inline policy
 * under a state name ({@link dev.sluice.core.PolicyRef#inlineUnder}) called with other parameters:
 * such a request, and every later one on its key, waits for the next batch, so that each key's
 * command is decided under the policy its requests named, in their order.
 *
 * <h2>Why it is correct</h2>
 *
 * Submitting enqueues then tries to take the lane; finishing an invocation releases the lane then
 * tries to take it again. Whichever of the two runs second sees both the queued request and the
 * free lane, so no request is stranded.
 */
public final class OwnerBatcher {
  /** One request waiting for a batch: what to decide on one key, and who waits for the answer. */
  public record Pending(KeyCommand command, int partitionId, CompletableFuture<KeyOutcome> answer) {
    public Pending(KeyCommand command, int partitionId) {
      this(command, partitionId, new CompletableFuture<>());
    }
  }

  /** How a batch for this lane's owner travels. */
  @FunctionalInterface
  public interface Delivery {
    CompletionStage<Map<String, KeyOutcome>> deliver(DecideProcessor batch);
  }

  private final Delivery delivery;
  private final Executor callbacks;
  private final int maxKeysPerBatch;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  // Written only by the holder of the lane, read by anyone.
  private final ConcurrentLinkedDeque<Pending> deferred = new ConcurrentLinkedDeque<>();
  private final AtomicBoolean busy = new AtomicBoolean();

  public OwnerBatcher(Delivery delivery, Executor callbacks, int maxKeysPerBatch) {
    this.delivery = delivery;
    this.callbacks = callbacks;
    this.maxKeysPerBatch = maxKeysPerBatch;
  }

  public void submit(Pending pending) {
    queue.add(pending);
    trySend();
  }

  public void submitAll(List<Pending> pendings) {
    queue.addAll(pendings);
    trySend();
  }

  private void trySend() {
    while (!queue.isEmpty() || !deferred.isEmpty()) {
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

  /**
   * Takes up to {@link #maxKeysPerBatch} keys' requests, keeping each key's order; a request under
   * another policy than its key's first in this batch waits for the next, with the key's requests
   * after it.
   */
  private Map<String, List<Pending>> drain() {
    Map<String, List<Pending>> batch = new LinkedHashMap<>();
    List<Pending> putBack = new ArrayList<>();
    Set<String> held = Set.of();
    Pending next;
    while ((next = deferred.isEmpty() ? queue.poll() : deferred.poll()) != null) {
      String key = next.command().stateKey();
      if (held.contains(key)) {
        putBack.add(next);
        continue;
      }
      List<Pending> forKey = batch.get(key);
      if (forKey == null) {
        if (batch.size() >= maxKeysPerBatch) {
          putBack.add(next);
          break;
        }
        forKey = new ArrayList<>(2);
        batch.put(key, forKey);
      } else if (!sameRef(forKey.get(0).command(), next.command())) {
        if (held.isEmpty()) {
          held = new HashSet<>();
        }
        held.add(key);
        putBack.add(next);
        continue;
      }
      forKey.add(next);
    }
    for (int i = putBack.size() - 1; i >= 0; i--) {
      deferred.addFirst(putBack.get(i));
    }
    return batch;
  }

  private void send(Map<String, List<Pending>> batch) {
    KeyCommand[] commands = new KeyCommand[batch.size()];
    int[] partitions = new int[batch.size()];
    int i = 0;
    for (List<Pending> forKey : batch.values()) {
      commands[i] = merged(forKey);
      partitions[i] = forKey.get(0).partitionId();
      i++;
    }
    SENDING.set(Boolean.TRUE);
    try {
      // A plain whenComplete, no executor: it runs where the delivery completes (Hazelcast's
      // default async executor for submitToKeys, the callback executor for Sluice's own batches,
      // never a partition or network thread), and releasing the lane, sending the next batch and
      // answering this one all happen there. Should the answer already be there (completion
      // inline, on this thread), move it to the callback executor, so sends never recurse.
      delivery
          .deliver(new DecideProcessor(commands, partitions))
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

  /**
   * Whether {@code b} may join {@code a}'s command on their key. Only a policy under a state name
   * can differ between requests on one key; every other state key names its policy.
   */
  private static boolean sameRef(KeyCommand a, KeyCommand b) {
    return !b.ref().storesPolicyWithState() || a.ref() == b.ref() || a.ref().equals(b.ref());
  }

  /** One key's requests as one command: their operations one after another. */
  private static KeyCommand merged(List<Pending> forKey) {
    KeyCommand first = forKey.get(0).command();
    if (forKey.size() == 1) {
      return first;
    }
    List<KeyOp> ops = new ArrayList<>();
    for (Pending p : forKey) {
      ops.addAll(List.of(p.command().ops()));
    }
    return new KeyCommand(first.stateKey(), first.ref(), ops.toArray(new KeyOp[0]));
  }

  private static final ThreadLocal<Boolean> SENDING = ThreadLocal.withInitial(() -> Boolean.FALSE);

  private void finish(
      Map<String, List<Pending>> batch,
      @Nullable Map<String, KeyOutcome> outcomes,
      @Nullable Throwable failure) {
    busy.set(false);
    try {
      trySend();
    } finally {
      complete(batch, outcomes, failure);
    }
  }

  /** Hands each waiting request its slice of its key's outcome (or the failure). */
  static void complete(
      Map<String, List<Pending>> batch,
      @Nullable Map<String, KeyOutcome> outcomes,
      @Nullable Throwable failure) {
    for (Map.Entry<String, List<Pending>> entry : batch.entrySet()) {
      KeyOutcome outcome = outcomes == null ? null : outcomes.get(entry.getKey());
      int from = 0;
      for (Pending p : entry.getValue()) {
        int length = p.command().ops().length;
        if (failure != null) {
          p.answer().completeExceptionally(Futures.unwrap(failure));
        } else if (outcome == null || from + length > outcome.size()) {
          p.answer()
              .completeExceptionally(
                  new IllegalStateException("no answer from the grid for " + entry.getKey()));
        } else {
          p.answer().complete(outcome.slice(from, length));
        }
        from += length;
      }
    }
  }
}
