package dev.sluice.core.backend;

import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Batching, the layer next to the storage: commands that meet on their way to the same place leave
 * together, as one invocation, and commands on one key leave merged into one. The invocation cost
 * is paid once per batch instead of once per request, so a hot key costs one invocation per round
 * trip rather than one per call.
 *
 * <h2>Lanes</h2>
 *
 * Commands meet in lanes: on the grid, a few per owning member ({@link Lanes#laneOf}); for a
 * runtime without owners, one. A lane has at most one invocation in flight. Commands that arrive
 * meanwhile queue, and when it lands they leave together, at most {@code maxKeysPerBatch} keys at a
 * time; each key's commands as one command, their operations one after another, decided in order in
 * one atomic step; each caller then gets its slice of the key's outcome. No timer: an idle lane
 * sends at once, so a lone request pays no added latency, and under load the batches grow with the
 * load.
 *
 * <h2>Which calls</h2>
 *
 * Asynchronous calls and batches go through the lanes (or, with lanes off for them, each command is
 * its own invocation). Synchronous calls go one of three ways ({@link SyncCalls}): each on the
 * caller's thread, the fewest thread hand-offs (a grid limiter's default); on the caller's thread
 * unless calls on the same key are waiting here already, when it joins its key's lane instead, so
 * that concurrent calls on a hot key leave together (a client's default, "coalescing"); or always
 * through the lanes. Peeks always go on their own: they change nothing and take a read-only path.
 * So does a command its runtime puts in no lane ({@link Lanes#laneOf} null).
 *
 * <h2>Why it is exact</h2>
 *
 * A key always travels in the same lane, and a lane has at most one invocation in flight, so the
 * commands queued on a key are decided in the order they were queued, each seeing the ones before:
 * the answers of the same calls made one after another. A key's state key names its rule or inline
 * policy, so commands on one key share one, except for an inline policy under a state name ({@link
 * dev.sluice.core.PolicyRef#inlineUnder}) called with other parameters: such a command, and every
 * later one on its key, waits for the next batch, so that each key's merged command is decided
 * under the policy its commands named, in their order. Nothing is split, counted ahead or guessed
 * here. An operation that is wrong in itself (a cost above the capacity) is that operation's error
 * alone ({@link KeyOutcome}), so a bad request never fails the others merged with it.
 *
 * <p>Submitting enqueues then tries to take the lane; finishing an invocation releases the lane
 * then tries to take it again. Whichever of the two runs second sees both the queued command and
 * the free lane, so no command is stranded.
 *
 * <h2>Deadlines</h2>
 *
 * A synchronous caller waits in a lane until its {@link Deadline} at most; if its command is still
 * queued then, it leaves the queue and is never sent. One already sent may still be decided, as for
 * any call that timed out.
 */
public final class BatchingBackend extends BackendDecorator {

  /** How synchronous calls travel (see the class doc). */
  public enum SyncCalls {
    /** Each on the caller's thread, its own invocation. */
    DIRECT,
    /** On the caller's thread, unless calls on the same key are waiting: then its key's lane. */
    COALESCED,
    /** Through the lanes, the caller waiting. */
    LANES
  }

  /** Where a runtime's commands meet: the grid's lanes per owning member. */
  public interface Lanes {
    /**
     * The lane {@code command} travels in; commands on one key always share one. Null: it travels
     * on its own, sent below as it came (a global rule's check in a region, which its regional
     * owner answers off the partition thread, and which may wait on the home grid).
     */
    @Nullable Object laneOf(KeyCommand command);

    /**
     * Sends one lane's batch, one command per key, as one invocation: the outcomes by state key, or
     * one failure for the batch, once every key is done. The answer completes in a task on {@code
     * completions}, never on the runtime's own partition and network threads.
     */
    CompletionStage<Map<String, KeyOutcome>> send(
        Object lane, KeyCommand[] batch, Executor completions);

    /** Where an answer that completed on the sending thread itself is handed on. */
    Executor callbacks();
  }

  private final Lanes lanes;
  private final SyncCalls syncCalls;
  private final boolean asyncLanes;
  private final int maxKeysPerBatch;
  private final ConcurrentHashMap<Object, Lane> lanesInUse = new ConcurrentHashMap<>();

  /**
   * Synchronous calls waiting for an answer, by key ({@link SyncCalls#COALESCED}): a call that
   * finds others of its key still waiting joins its lane rather than flying alone.
   */
  private final ConcurrentHashMap<String, Integer> waiting = new ConcurrentHashMap<>();

  /**
   * @param lanes where commands meet; null: one lane, sent as a batch of commands to {@code below}
   * @param asyncLanes whether asynchronous calls and batches go through the lanes
   */
  public BatchingBackend(
      Backend below,
      @Nullable Lanes lanes,
      SyncCalls syncCalls,
      boolean asyncLanes,
      int maxKeysPerBatch) {
    super(below);
    if (maxKeysPerBatch < 1) {
      throw new IllegalArgumentException("a batch carries at least one key");
    }
    this.lanes = lanes != null ? lanes : new OneLane(below);
    this.syncCalls = syncCalls;
    this.asyncLanes = asyncLanes;
    this.maxKeysPerBatch = maxKeysPerBatch;
  }

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    if (command.readOnly() || syncCalls == SyncCalls.DIRECT) {
      return below.execute(command, deadline);
    }
    if (syncCalls == SyncCalls.LANES) {
      return awaitQueued(command, deadline);
    }
    String key = command.stateKey();
    boolean alone = waiting.merge(key, 1, Integer::sum) == 1;
    try {
      return alone ? below.execute(command, deadline) : awaitQueued(command, deadline);
    } finally {
      waiting.computeIfPresent(key, (k, calls) -> calls == 1 ? null : calls - 1);
    }
  }

  /** {@code command} through its lane, the caller waiting until its deadline at most. */
  private KeyOutcome awaitQueued(KeyCommand command, Deadline deadline) {
    Pending pending = queued(command, deadline);
    if (pending == null) {
      return below.execute(command, deadline);
    }
    try {
      return deadline.await(pending.answer);
    } catch (DeadlineExceededException e) {
      if (pending.answer.completeExceptionally(e)) {
        throw e; // if still queued, it leaves the queue unsent
      }
      return Futures.await(pending.answer); // the answer came meanwhile
    }
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    if (command.readOnly() || !asyncLanes) {
      return below.executeAsync(command, deadline);
    }
    Pending pending = queued(command, deadline);
    return pending == null ? below.executeAsync(command, deadline) : pending.answer;
  }

  /**
   * {@code command} in its lane. A cost above the capacity of a policy known here is refused first,
   * as the storage refuses a command sent on its own: the caller learns it at once, and the batch
   * it would have joined never carries it. Null: the command travels in no lane ({@link
   * Lanes#laneOf}).
   */
  private @Nullable Pending queued(KeyCommand command, Deadline deadline) {
    CompiledPolicy policy = below.policyOf(command.ref(), false);
    if (policy != null) {
      policy.checkCosts(command);
    }
    Lane lane = lane(command);
    if (lane == null) {
      return null;
    }
    Pending pending = new Pending(command, deadline.answers());
    lane.submit(pending);
    return pending;
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    if (!asyncLanes) {
      return below.executeAll(commands, deadline);
    }
    List<CompletableFuture<KeyOutcome>> answers = new ArrayList<>(commands.size());
    // Grouped per lane first, so that each lane gets its share in one go (and in order).
    Map<Lane, List<Pending>> byLane = new LinkedHashMap<>();
    for (KeyCommand command : commands) {
      Lane lane = lane(command);
      if (lane == null) {
        answers.add(below.executeAsync(command, deadline));
        continue;
      }
      Pending pending = new Pending(command, deadline.answers());
      answers.add(pending.answer);
      byLane.computeIfAbsent(lane, id -> new ArrayList<>()).add(pending);
    }
    byLane.forEach(Lane::submitAll);
    return Futures.all(answers);
  }

  private @Nullable Lane lane(KeyCommand command) {
    Object id = lanes.laneOf(command);
    return id == null ? null : lanesInUse.computeIfAbsent(id, Lane::new);
  }

  /** One command waiting for a batch, its caller's answer, and where the caller takes it. */
  private static final class Pending {
    final KeyCommand command;
    final CompletableFuture<KeyOutcome> answer = new CompletableFuture<>();
    final @Nullable AnswerExecutor answers;

    Pending(KeyCommand command, @Nullable AnswerExecutor answers) {
      this.command = command;
      this.answers = answers;
    }
  }

  private static final ThreadLocal<Boolean> SENDING = ThreadLocal.withInitial(() -> Boolean.FALSE);

  /** One lane: its queue, and whether an invocation of it is in flight. */
  private final class Lane {
    private final Object id;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    // Written only by the holder of the lane, read by anyone.
    private final ConcurrentLinkedDeque<Pending> deferred = new ConcurrentLinkedDeque<>();
    private final AtomicBoolean busy = new AtomicBoolean();

    Lane(Object id) {
      this.id = id;
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
     * Takes up to {@link #maxKeysPerBatch} keys' commands, keeping each key's order; a command
     * whose caller stopped waiting is dropped; a command under another policy than its key's first
     * in this batch waits for the next, with the key's commands after it.
     */
    private Map<String, List<Pending>> drain() {
      Map<String, List<Pending>> batch = new LinkedHashMap<>();
      List<Pending> putBack = new ArrayList<>();
      Set<String> held = Set.of();
      Pending next;
      while ((next = deferred.isEmpty() ? queue.poll() : deferred.poll()) != null) {
        if (next.answer.isDone()) {
          continue;
        }
        String key = next.command.stateKey();
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
        } else if (!sameRef(forKey.get(0).command, next.command)) {
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
      int i = 0;
      for (List<Pending> forKey : batch.values()) {
        commands[i++] = merged(forKey);
      }
      // The batch completes where its first caller takes its answer, if it said where: that
      // caller's answer then needs no hand-off of its own (see complete()).
      AnswerExecutor first = batch.values().iterator().next().get(0).answers;
      Executor completions = first != null ? first : lanes.callbacks();
      SENDING.set(Boolean.TRUE);
      try {
        // A plain whenComplete, no executor: it runs where the send completes (a task on
        // completions), and releasing the lane, sending the next batch and answering this one all
        // happen there. Should the answer already be there (completed on this thread), it moves to
        // completions, so sends never recurse.
        lanes
            .send(id, commands, completions)
            .whenComplete(
                (outcomes, failure) -> {
                  if (SENDING.get()) {
                    completions.execute(() -> finish(batch, outcomes, failure));
                  } else {
                    finish(batch, outcomes, failure);
                  }
                });
      } catch (RuntimeException e) {
        completions.execute(() -> finish(batch, null, e));
      } finally {
        SENDING.set(Boolean.FALSE);
      }
    }

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
  }

  /**
   * Whether {@code b} may join {@code a}'s command on their key. Only a policy under a state name
   * can differ between commands on one key; every other state key names its policy.
   */
  private static boolean sameRef(KeyCommand a, KeyCommand b) {
    return !b.ref().storesPolicyWithState() || a.ref() == b.ref() || a.ref().equals(b.ref());
  }

  /** One key's commands as one command: their operations one after another. */
  private static KeyCommand merged(List<Pending> forKey) {
    KeyCommand first = forKey.get(0).command;
    if (forKey.size() == 1) {
      return first;
    }
    List<KeyOp> ops = new ArrayList<>();
    for (Pending p : forKey) {
      ops.addAll(List.of(p.command.ops()));
    }
    return new KeyCommand(first.stateKey(), first.ref(), ops.toArray(new KeyOp[0]));
  }

  /**
   * Hands each waiting caller its slice of its key's outcome (or the failure): here where the
   * caller takes its answer here (or said nothing, on the lanes' own callback thread), otherwise in
   * one task per executor the callers named.
   */
  private void complete(
      Map<String, List<Pending>> batch,
      @Nullable Map<String, KeyOutcome> outcomes,
      @Nullable Throwable failure) {
    Map<Executor, List<Runnable>> elsewhere = null;
    for (Map.Entry<String, List<Pending>> entry : batch.entrySet()) {
      KeyOutcome outcome = outcomes == null ? null : outcomes.get(entry.getKey());
      int from = 0;
      for (Pending p : entry.getValue()) {
        int length = p.command.ops().length;
        Runnable answer;
        if (failure != null) {
          answer = () -> p.answer.completeExceptionally(Futures.unwrap(failure));
        } else if (outcome == null || from + length > outcome.size()) {
          answer =
              () ->
                  p.answer.completeExceptionally(
                      new IllegalStateException("no answer from the grid for " + entry.getKey()));
        } else {
          KeyOutcome slice = outcome.slice(from, length);
          answer = () -> p.answer.complete(slice);
        }
        from += length;
        Executor there = where(p.answers);
        if (there == null) {
          answer.run();
        } else {
          if (elsewhere == null) {
            elsewhere = new LinkedHashMap<>();
          }
          elsewhere.computeIfAbsent(there, e -> new ArrayList<>()).add(answer);
        }
      }
    }
    if (elsewhere != null) {
      elsewhere.forEach(
          (there, answers) ->
              new AnswerExecutor(there).execute(() -> answers.forEach(Runnable::run)));
    }
  }

  /**
   * Where a caller's answer must go from this thread: null if here already (its executor's task
   * runs here, or it named none and this is not one of another caller's executor tasks).
   */
  private @Nullable Executor where(@Nullable AnswerExecutor answers) {
    if (answers != null) {
      return answers.running() ? null : answers.target();
    }
    return AnswerExecutor.runningAny() ? lanes.callbacks() : null;
  }

  /** The one lane of a runtime without owners: its batch goes below as a batch of commands. */
  private record OneLane(Backend below) implements Lanes {
    private static final Object ONE = new Object();

    @Override
    public Object laneOf(KeyCommand command) {
      return ONE;
    }

    @Override
    public CompletionStage<Map<String, KeyOutcome>> send(
        Object lane, KeyCommand[] batch, Executor completions) {
      return below
          .executeAll(List.of(batch), Deadline.NONE)
          .thenApply(
              outcomes -> {
                Map<String, KeyOutcome> byKey = new LinkedHashMap<>();
                for (int i = 0; i < batch.length; i++) {
                  byKey.put(batch[i].stateKey(), outcomes.get(i));
                }
                return byKey;
              })
          .whenCompleteAsync((byKey, failure) -> {}, completions);
    }

    @Override
    public Executor callbacks() {
      return ForkJoinPool.commonPool();
    }
  }
}
