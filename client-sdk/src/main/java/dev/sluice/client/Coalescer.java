package dev.sluice.client;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Turns concurrent calls for one hot key into one batch call.
 *
 * <h2>How</h2>
 *
 * Each key has a lane. A call that finds its lane idle marks it busy and goes to the grid alone.
 * Calls that arrive while it is in flight queue up behind it, in arrival order. When the flight
 * lands, everything queued leaves together as one batch of {@code n} checks on that key, which the
 * grid decides in order in one entry-processor invocation; the lane stays busy and the next
 * arrivals queue behind that batch.
 *
 * <pre>
 *   t0  A ───────────▶ grid [A]            lane busy
 *   t1  B, C, D queue                      (waiting)
 *   t2  A lands ─▶ [B, C, D] ───▶ grid      one invocation, decided B, then C, then D
 *   t3  E queues behind [B, C, D]
 * </pre>
 *
 * <h2>Why the semantics are exact</h2>
 *
 * The grid decides a batch's checks on one key in order, each seeing the ones before it: the same
 * answers as {@code n} calls made one after another in queue order. Nothing is split, pre-counted
 * or guessed on the client, so no more is admitted than serial calls would admit. Under contention
 * the client makes one invocation per round trip per key instead of one per call.
 *
 * <h2>Threads</h2>
 *
 * A synchronous caller that started a flight runs it on its own thread. When it lands, the next
 * batch is handed to the first synchronous waiter in it, which wakes and runs it on its thread, so
 * no caller waits longer than its own batch and one before it, and no extra thread is needed.
 * Batches made only of asynchronous calls are sent asynchronously from the thread that completed
 * the previous flight.
 *
 * <p>If a batch fails with an error that belongs to one request (a cost above the capacity, say),
 * its checks are decided one by one in order, so one bad request cannot fail its neighbours.
 *
 * <h2>Deadlines</h2>
 *
 * A synchronous call waits at most its timeout in all, queue and flight together: a caller that
 * waited behind a flight does not get a whole timeout again for its own batch. A leader sends its
 * batch with the time it has left (it arrived first, so it has the least), and a waiter stops
 * waiting at its own deadline: if it was still queued it leaves the queue and is never sent; if its
 * batch was already in flight the answer, when it comes, is dropped (the permits may be counted, as
 * for any call that timed out). A waiter whose deadline passes just as the lead is handed to it
 * passes the lead on, so a batch is never left without a leader.
 */
final class Coalescer {

  /** Decides a batch of checks on one key, in order. Never throws for grid failures. */
  interface BatchDecider {
    /**
     * @throws TimeoutException if the answer did not come within {@code timeoutNanos}
     */
    List<Decision> decide(List<Check> checks, long timeoutNanos) throws TimeoutException;

    CompletionStage<List<Decision>> decideAsync(List<Check> checks);
  }

  /** Marks a synchronous waiter's wake-up as "lead the next batch" rather than an answer. */
  private static final Decision LEAD =
      new Decision(false, 0, 0, 0, 0, 0, false, Decision.DecidedBy.LIMITER);

  /** How a waiter that stopped waiting marks its place, so nobody answers or leads it. */
  private static final RuntimeException ABANDONED =
      new IllegalStateException("the caller stopped waiting") {
        private static final long serialVersionUID = 1L;

        @Override
        public synchronized Throwable fillInStackTrace() {
          return this;
        }
      };

  private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
  private final BatchDecider decider;

  Coalescer(BatchDecider decider) {
    this.decider = decider;
  }

  private static final class Lane {
    final String key;
    final ArrayDeque<Pending> queue = new ArrayDeque<>();
    boolean busy;
    boolean retired;

    Lane(String key) {
      this.key = key;
    }
  }

  private static final class Pending {
    final Check check;
    final boolean sync;
    final CompletableFuture<Decision> result = new CompletableFuture<>();

    /** The lane it queued on. */
    volatile @Nullable Lane lane;

    /** Set before {@link #result} completes with {@link #LEAD}. */
    volatile List<Pending> batchToLead = List.of();

    Pending(Check check, boolean sync) {
      this.check = check;
      this.sync = sync;
    }
  }

  /**
   * Decides {@code check} on {@code key}'s lane, waiting at most {@code timeoutNanos} in all.
   *
   * @throws TimeoutException if no answer came in time (the check may still be counted)
   */
  Decision decide(String key, Check check, long timeoutNanos) throws TimeoutException {
    long deadline = System.nanoTime() + timeoutNanos;
    Pending self = new Pending(check, true);
    Lane lane = enqueue(key, self);
    if (lane != null) {
      return lead(lane, List.of(self), self, deadline);
    }
    Decision answer = await(self, deadline);
    if (answer == LEAD) {
      if (left(deadline) == 0) {
        passLead(self.lane, self.batchToLead, self);
        throw new TimeoutException("the turn to lead came at the deadline");
      }
      return lead(self.lane, self.batchToLead, self, deadline);
    }
    return answer;
  }

  CompletionStage<Decision> decideAsync(String key, Check check) {
    Pending self = new Pending(check, false);
    Lane lane = enqueue(key, self);
    if (lane != null) {
      flyAsync(lane, List.of(self));
    }
    return self.result;
  }

  /** Number of keys with a flight or a queue right now. */
  int activeKeys() {
    return lanes.size();
  }

  /** Queues {@code pending}, or returns its lane if the caller must fly it now. */
  private @Nullable Lane enqueue(String key, Pending pending) {
    while (true) {
      Lane lane = lanes.computeIfAbsent(key, Lane::new);
      synchronized (lane) {
        if (lane.retired) {
          continue;
        }
        pending.lane = lane;
        if (lane.busy) {
          lane.queue.addLast(pending);
          return null;
        }
        lane.busy = true;
        return lane;
      }
    }
  }

  /**
   * Waits for a queued call's answer (or its turn to lead) until {@code deadline}; at the deadline
   * leaves the queue, or passes on a lead that came too late.
   */
  private Decision await(Pending self, long deadline) throws TimeoutException {
    try {
      return self.result.get(left(deadline), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      if (self.result.completeExceptionally(ABANDONED)) {
        Lane lane = self.lane;
        synchronized (lane) {
          lane.queue.remove(self);
        }
        throw e;
      }
      Decision late = self.result.getNow(null); // it came meanwhile
      if (late == LEAD) {
        passLead(self.lane, self.batchToLead, self);
        throw e;
      }
      return late;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!self.result.completeExceptionally(ABANDONED) && self.result.getNow(null) == LEAD) {
        passLead(self.lane, self.batchToLead, self);
      }
      throw new IllegalStateException("interrupted while waiting for a decision", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TimeoutException timeout) {
        throw timeout;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(cause);
    }
  }

  /** Runs {@code batch} on this thread, answers the others in it, hands the lane on. */
  private Decision lead(Lane lane, List<Pending> batch, Pending self, long deadline)
      throws TimeoutException {
    List<Pending> live = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      if (p == self || !p.result.isDone()) {
        live.add(p); // a waiter that gave up meanwhile is not sent
      }
    }
    List<Object> answers;
    try {
      answers = decideInOrder(live, deadline);
    } catch (RuntimeException | TimeoutException e) {
      answers = new ArrayList<>(live.size());
      for (int i = 0; i < live.size(); i++) {
        answers.add(e);
      }
    }
    Object mine = null;
    for (int i = 0; i < live.size(); i++) {
      Pending p = live.get(i);
      Object answer = answers.get(i);
      if (p == self) {
        mine = answer;
      } else if (answer instanceof Decision d) {
        p.result.complete(d);
      } else {
        p.result.completeExceptionally((Throwable) answer);
      }
    }
    handOn(lane);
    if (mine instanceof RuntimeException e) {
      throw e;
    }
    if (mine instanceof TimeoutException e) {
      throw e;
    }
    return (Decision) mine;
  }

  /** Each check's decision, or the exception that belongs to that check alone. */
  private List<Object> decideInOrder(List<Pending> batch, long deadline) throws TimeoutException {
    try {
      return new ArrayList<>(decider.decide(checks(batch), left(deadline)));
    } catch (IllegalArgumentException e) {
      if (batch.size() == 1) {
        return List.of(e);
      }
    }
    // One request in the batch is bad: decide them one by one, in order, each failing alone.
    List<Object> answers = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      try {
        if (left(deadline) == 0) {
          throw new TimeoutException("no time left to decide the batch one by one");
        }
        answers.add(decider.decide(List.of(p.check), left(deadline)).get(0));
      } catch (RuntimeException | TimeoutException e) {
        answers.add(e);
      }
    }
    return answers;
  }

  private void flyAsync(Lane lane, List<Pending> batch) {
    CompletionStage<List<Decision>> flight;
    try {
      flight = decider.decideAsync(checks(batch));
    } catch (RuntimeException e) {
      flight = CompletableFuture.failedFuture(e);
    }
    flight.whenComplete(
        (answers, error) -> {
          if (error == null) {
            for (int i = 0; i < batch.size(); i++) {
              batch.get(i).result.complete(answers.get(i));
            }
            handOn(lane);
          } else if (batch.size() > 1 && causeOf(error) instanceof IllegalArgumentException) {
            oneByOne(lane, batch, 0);
          } else {
            for (Pending p : batch) {
              p.result.completeExceptionally(causeOf(error));
            }
            handOn(lane);
          }
        });
  }

  /** One request in the batch is bad: decides them one by one, in order, each failing alone. */
  private void oneByOne(Lane lane, List<Pending> batch, int next) {
    if (next == batch.size()) {
      handOn(lane);
      return;
    }
    Pending p = batch.get(next);
    CompletionStage<List<Decision>> flight;
    try {
      flight = decider.decideAsync(List.of(p.check));
    } catch (RuntimeException e) {
      flight = CompletableFuture.failedFuture(e);
    }
    flight.whenComplete(
        (answers, error) -> {
          if (error == null) {
            p.result.complete(answers.get(0));
          } else {
            p.result.completeExceptionally(causeOf(error));
          }
          oneByOne(lane, batch, next + 1);
        });
  }

  private static Throwable causeOf(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  /** The flight on {@code lane} landed: retire the lane or send what queued behind it. */
  private void handOn(Lane lane) {
    List<Pending> next;
    synchronized (lane) {
      if (lane.queue.isEmpty()) {
        lane.busy = false;
        lane.retired = true;
        lanes.remove(lane.key, lane);
        return;
      }
      next = new ArrayList<>(lane.queue);
      lane.queue.clear();
    }
    send(lane, next);
  }

  /**
   * Sends {@code batch} (the lane stays busy): led by its first synchronous waiter that still
   * waits, or asynchronously from this thread if none does.
   */
  private void send(Lane lane, List<Pending> batch) {
    List<Pending> live = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      if (!p.result.isDone()) {
        live.add(p);
      }
    }
    if (live.isEmpty()) {
      handOn(lane);
      return;
    }
    for (Pending p : live) {
      if (p.sync) {
        p.batchToLead = live;
        if (p.result.complete(LEAD)) {
          return;
        }
      }
    }
    flyAsync(lane, live);
  }

  /** {@code self} was handed the lead after its deadline: the rest of the batch goes without it. */
  private void passLead(Lane lane, List<Pending> batch, Pending self) {
    List<Pending> rest = new ArrayList<>(batch);
    rest.remove(self);
    send(lane, rest);
  }

  private static long left(long deadlineNanos) {
    return Math.max(0, deadlineNanos - System.nanoTime());
  }

  private static List<Check> checks(List<Pending> batch) {
    List<Check> checks = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      checks.add(p.check);
    }
    return checks;
  }
}
