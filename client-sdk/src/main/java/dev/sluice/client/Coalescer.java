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
 */
final class Coalescer {

  /** Decides a batch of checks on one key, in order. Never throws for grid failures. */
  interface BatchDecider {
    List<Decision> decide(List<Check> checks);

    CompletionStage<List<Decision>> decideAsync(List<Check> checks);
  }

  /** Marks a synchronous waiter's wake-up as "lead the next batch" rather than an answer. */
  private static final Decision LEAD =
      new Decision(false, 0, 0, 0, 0, 0, false, Decision.DecidedBy.LIMITER);

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

    /** Set before {@link #result} completes with {@link #LEAD}. */
    volatile List<Pending> batchToLead = List.of();

    volatile @Nullable Lane laneToLead;

    Pending(Check check, boolean sync) {
      this.check = check;
      this.sync = sync;
    }
  }

  Decision decide(String key, Check check) {
    Pending self = new Pending(check, true);
    Lane lane = enqueue(key, self);
    if (lane != null) {
      return lead(lane, List.of(self), self);
    }
    Decision answer = self.result.join();
    if (answer == LEAD) {
      return lead(self.laneToLead, self.batchToLead, self);
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
        if (lane.busy) {
          lane.queue.addLast(pending);
          return null;
        }
        lane.busy = true;
        return lane;
      }
    }
  }

  /** Runs {@code batch} on this thread, answers the others in it, hands the lane on. */
  private Decision lead(Lane lane, List<Pending> batch, Pending self) {
    List<Object> answers;
    try {
      answers = decideInOrder(batch);
    } catch (RuntimeException e) {
      answers = new ArrayList<>(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        answers.add(e);
      }
    }
    Object mine = null;
    for (int i = 0; i < batch.size(); i++) {
      Pending p = batch.get(i);
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
    return (Decision) mine;
  }

  /** Each check's decision, or the exception that belongs to that check alone. */
  private List<Object> decideInOrder(List<Pending> batch) {
    try {
      return new ArrayList<>(decider.decide(checks(batch)));
    } catch (IllegalArgumentException e) {
      if (batch.size() == 1) {
        return List.of(e);
      }
    }
    // One request in the batch is bad: decide them one by one, in order, each failing alone.
    List<Object> answers = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      try {
        answers.add(decider.decide(List.of(p.check)).get(0));
      } catch (RuntimeException e) {
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
    for (Pending p : next) {
      if (p.sync) {
        p.batchToLead = next;
        p.laneToLead = lane;
        p.result.complete(LEAD);
        return;
      }
    }
    flyAsync(lane, next);
  }

  private static List<Check> checks(List<Pending> batch) {
    List<Check> checks = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      checks.add(p.check);
    }
    return checks;
  }
}
