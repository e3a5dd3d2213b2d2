package dev.sluice.core.grid.transport;

import dev.sluice.core.grid.DecideProcessor;
import dev.sluice.core.pipeline.Futures;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Flat combining of a client's synchronous decisions on one member: the calls that meet travel as
 * one {@link DecideBatchCodec} message, with no thread of Sluice's own in between.
 *
 * <h2>How</h2>
 *
 * A caller queues its command. If no batch to this member is in flight, it takes the lane and sends
 * everything queued (up to {@code maxKeysPerBatch} keys) as one message; otherwise it parks. The
 * client thread that reads the answer hands each waiter its outcome, lets go of the lane and wakes
 * the first caller still queued, which sends the next batch. A caller alone sends its own command
 * as one single-key invocation on its own thread, which is exactly the uncombined path; callers
 * that arrive meanwhile queue behind it. So a lone caller pays nothing, and under load the
 * invocation's cost (serializing, the client's and the member's network threads, their wake-ups) is
 * paid once per batch instead of once per call (docs/benchmarks.md, "Combining synchronous client
 * calls").
 *
 * <h2>Why no call is stranded</h2>
 *
 * A caller queues, then tries the lane; finishing a batch lets go of the lane, then wakes the first
 * queued caller. Whichever runs second sees both the queued caller and the free lane (a wake-up
 * before a park makes the park return at once).
 *
 * <h2>Exactness</h2>
 *
 * Each key is still decided in its own atomic step on its owner; several calls on one key in a
 * batch travel as one command, their operations in queue order. A call that times out while still
 * queued leaves the queue and was never sent: nothing was counted. One that times out after it was
 * sent may still be decided, as with any timed call. A member that refuses the message (an older
 * node) ran nothing, and its callers are told to go the uncombined way ({@link #decide} returns
 * null).
 */
final class SyncCombiner {
  /** A bound on a wait without a timeout (a year), so that deadlines never overflow. */
  private static final long LONGEST_WAIT_NANOS = TimeUnit.DAYS.toNanos(365);

  private final ClientBatchInvoker batches;
  private final ClientKeyInvoker single;
  private final UUID owner;
  private final int maxKeysPerBatch;
  private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean inFlight = new AtomicBoolean();
  private final LongAdder invocations = new LongAdder();

  SyncCombiner(
      ClientBatchInvoker batches, ClientKeyInvoker single, UUID owner, int maxKeysPerBatch) {
    if (maxKeysPerBatch < 1) {
      throw new IllegalArgumentException("maxKeysPerBatch must be at least 1");
    }
    this.batches = batches;
    this.single = single;
    this.owner = owner;
    this.maxKeysPerBatch = maxKeysPerBatch;
  }

  /** Invocations sent so far, batches and single calls alike (for tests). */
  long invocations() {
    return invocations.sum();
  }

  /** Callers waiting for their turn to be sent (for tests). */
  int queued() {
    return queue.size();
  }

  /** One caller's command, and once its batch is back, its answer. */
  private static final class Waiter {
    final KeyCommand command;
    final int partitionId;
    final Thread thread = Thread.currentThread();
    @Nullable KeyOutcome outcome;
    @Nullable Throwable failure;
    boolean refused;

    /** Written last by whoever answers, read first by the waiter: publishes the fields above. */
    volatile boolean answered;

    Waiter(KeyCommand command, int partitionId) {
      this.command = command;
      this.partitionId = partitionId;
    }
  }

  /**
   * Decides {@code command} (on a key this combiner's member owns), waiting at most {@code
   * timeoutNanos} ({@code Long.MAX_VALUE}: no bound).
   *
   * @return the outcome, or null if the member refused Sluice's batch message (nothing was counted;
   *     send the command another way)
   * @throws TimeoutException if no answer came in time (if the command was sent, it may still be
   *     decided)
   */
  @Nullable KeyOutcome decide(KeyCommand command, int partitionId, long timeoutNanos)
      throws TimeoutException {
    long deadline = System.nanoTime() + Math.min(timeoutNanos, LONGEST_WAIT_NANOS);
    Waiter self = new Waiter(command, partitionId);
    queue.add(self);
    while (!self.answered) {
      if (!queue.isEmpty() && inFlight.compareAndSet(false, true)) {
        sendQueued(deadline);
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || Thread.currentThread().isInterrupted()) {
        boolean neverSent = queue.remove(self);
        if (self.answered) {
          break;
        }
        if (Thread.currentThread().isInterrupted()) {
          throw new IllegalStateException("interrupted while waiting for the grid");
        }
        throw new TimeoutException(
            neverSent
                ? "no turn to send within the call timeout (nothing was counted)"
                : "no answer from the grid within the call timeout");
      }
      LockSupport.parkNanos(this, left);
    }
    if (self.failure instanceof TimeoutException timeout) {
      throw timeout;
    }
    if (self.failure != null) {
      throw Futures.rethrown(self.failure);
    }
    return self.refused ? null : self.outcome;
  }

  /**
   * Sends what is queued; called holding the lane, which the batch's answer lets go of. {@code
   * deadline} is the sending caller's own.
   */
  private void sendQueued(long deadline) {
    Map<String, List<Waiter>> batch = drain();
    if (batch.isEmpty()) {
      letGo();
      return;
    }
    invocations.increment();
    if (batch.size() == 1) {
      List<Waiter> forKey = batch.values().iterator().next();
      if (forKey.size() == 1 && forKey.get(0).thread == Thread.currentThread()) {
        sendAlone(batch, forKey.get(0), deadline);
        return;
      }
    }
    KeyCommand[] commands = new KeyCommand[batch.size()];
    int[] partitionIds = new int[batch.size()];
    int i = 0;
    for (List<Waiter> forKey : batch.values()) {
      commands[i] =
          forKey.size() == 1
              ? forKey.get(0).command
              : OwnerBatcher.merged(forKey.stream().map(w -> w.command).toList());
      partitionIds[i] = forKey.get(0).partitionId;
      i++;
    }
    try {
      // Answered on the client thread that read the response: it only hands out outcomes and
      // wakes threads, never runs a caller's code.
      batches
          .decide(owner, new DecideProcessor(commands, partitionIds), Runnable::run)
          .whenComplete((outcomes, failure) -> answer(batch, outcomes, failure));
    } catch (RuntimeException e) {
      answer(batch, null, e);
    }
  }

  /** The caller alone: one single-key invocation on its own thread, the uncombined path. */
  private void sendAlone(Map<String, List<Waiter>> batch, Waiter self, long deadline) {
    long timeout = Math.max(1, deadline - System.nanoTime());
    KeyOutcome outcome = null;
    Throwable failure = null;
    try {
      outcome =
          single.submitToKey(
              self.command.stateKey(),
              new DecideProcessor(self.command),
              timeout,
              TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = new IllegalStateException("interrupted while waiting for the grid", e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      failure = e;
    }
    answer(batch, outcome == null ? null : Map.of(self.command.stateKey(), outcome), failure);
  }

  /** Takes up to {@link #maxKeysPerBatch} keys' commands, each key's in queue order. */
  private Map<String, List<Waiter>> drain() {
    Map<String, List<Waiter>> batch = new LinkedHashMap<>();
    Waiter next;
    while ((next = queue.peek()) != null) {
      List<Waiter> forKey = batch.get(next.command.stateKey());
      if (forKey == null && batch.size() >= maxKeysPerBatch) {
        break;
      }
      if (!queue.remove(next)) {
        continue; // it timed out meanwhile
      }
      if (forKey == null) {
        forKey = new ArrayList<>(1);
        batch.put(next.command.stateKey(), forKey);
      }
      forKey.add(next);
    }
    return batch;
  }

  /**
   * Hands each waiter of {@code batch} its slice of its key's outcome, then lets go of the lane.
   */
  private void answer(
      Map<String, List<Waiter>> batch,
      @Nullable Map<String, KeyOutcome> outcomes,
      @Nullable Throwable failure) {
    boolean refused = failure != null && ClientBatchInvoker.isRefusal(failure);
    letGo();
    for (Map.Entry<String, List<Waiter>> entry : batch.entrySet()) {
      KeyOutcome outcome = outcomes == null ? null : outcomes.get(entry.getKey());
      int from = 0;
      for (Waiter w : entry.getValue()) {
        int length = w.command.ops().length;
        if (refused) {
          w.refused = true;
        } else if (failure != null) {
          w.failure = Futures.unwrap(failure);
        } else if (outcome == null || from + length > outcome.size()) {
          w.failure = new IllegalStateException("no answer from the grid for " + entry.getKey());
        } else {
          w.outcome = outcome.slice(from, length);
        }
        from += length;
        w.answered = true;
        LockSupport.unpark(w.thread);
      }
    }
  }

  /** Lets go of the lane and wakes the first caller still queued, to send the next batch. */
  private void letGo() {
    inFlight.set(false);
    Waiter first = queue.peek();
    if (first != null) {
      LockSupport.unpark(first.thread);
    }
  }
}
