package dev.sluice.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The closed-loop load generator every contender runs under.
 *
 * <p>{@code threads} platform threads call {@link Contender#decide} back to back. Each thread draws
 * its keys from a {@link SplittableRandom} seeded with {@code SEED + threadIndex}, so every
 * contender sees exactly the same key sequence. A round ends at its deadline or when each thread
 * has made its share of {@code maxOps}, whichever comes first; throughput is the number of
 * decisions divided by the wall-clock time from the start signal until the last thread stopped.
 *
 * <p>Latency is the time one {@code decide} call took on the calling thread, recorded in a
 * per-thread HdrHistogram (3 significant digits, up to one minute) and merged at the end. This is a
 * closed loop: a slow call delays the next one, so the percentiles are service times, not the
 * response times an open-loop (fixed-rate) generator would see. That is the same for every
 * contender and it is said in the report.
 */
public final class LoadDriver {
  /** The base seed of the key sequences; printed in the report so a run can be repeated. */
  public static final long SEED = 0x511CE5L;

  private static final long HIGHEST_TRACKABLE_NANOS = Duration.ofMinutes(1).toNanos();

  private LoadDriver() {}

  /** Runs the warm-up (discarded) and then every measured round of {@code workload}. */
  public static List<RoundResult> run(Contender contender, Workload workload) {
    if (!workload.warmup().isZero()) {
      round(contender, workload, workload.warmup(), workload.maxOpsPerRound());
    }
    List<RoundResult> rounds = new ArrayList<>();
    for (int i = 0; i < workload.rounds(); i++) {
      rounds.add(round(contender, workload, workload.roundDuration(), workload.maxOpsPerRound()));
    }
    return rounds;
  }

  /** One round: at most {@code duration} and at most {@code maxOps} decisions in total. */
  public static RoundResult round(
      Contender contender, Workload workload, Duration duration, long maxOps) {
    int threads = workload.threads();
    long opsPerThread = Math.max(1, maxOps / threads);
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    Worker[] workers = new Worker[threads];
    Thread[] running = new Thread[threads];
    long[] deadline = new long[1];
    for (int t = 0; t < threads; t++) {
      Worker worker =
          new Worker(contender, workload.keys(), new SplittableRandom(SEED + t), opsPerThread);
      workers[t] = worker;
      running[t] =
          new Thread(
              () -> {
                ready.countDown();
                awaitQuietly(go);
                worker.run(deadline[0]);
              },
              "load-" + t);
      running[t].setDaemon(true);
      running[t].start();
    }
    awaitQuietly(ready);
    long start = System.nanoTime();
    deadline[0] = start + duration.toNanos();
    go.countDown();
    for (Thread thread : running) {
      joinQuietly(thread, duration.plusSeconds(30));
    }
    long elapsed = System.nanoTime() - start;

    Histogram merged = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    long operations = 0;
    String firstError = null;
    for (Worker worker : workers) {
      merged.add(worker.latency);
      operations += worker.operations;
      for (Outcome outcome : Outcome.values()) {
        outcomes.merge(outcome, worker.counts[outcome.ordinal()], Long::sum);
      }
      if (firstError == null && worker.firstError.get() != null) {
        firstError = worker.firstError.get();
      }
    }
    return new RoundResult(operations, elapsed, merged, outcomes, firstError);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void joinQuietly(Thread thread, Duration max) {
    try {
      thread.join(max.toMillis());
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(1_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One load thread's loop and its private counters (merged after the round, never shared). */
  private static final class Worker {
    private final Contender contender;
    private final KeySpace keys;
    private final SplittableRandom random;
    private final long maxOps;
    private final Histogram latency = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
    private final long[] counts = new long[Outcome.values().length];
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile long operations;

    Worker(Contender contender, KeySpace keys, SplittableRandom random, long maxOps) {
      this.contender = contender;
      this.keys = keys;
      this.random = random;
      this.maxOps = maxOps;
    }

    // The deadline is read once per call; nanoTime costs ~20 ns, far below any decision here.
    void run(long deadlineNanos) {
      long done = 0;
      long now = System.nanoTime();
      while (done < maxOps && now < deadlineNanos && !Thread.currentThread().isInterrupted()) {
        String key = keys.next(random);
        Outcome outcome;
        try {
          outcome = contender.decide(key);
        } catch (Exception | LinkageError e) {
          outcome = Outcome.ERROR;
          firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        long after = System.nanoTime();
        latency.recordValue(Math.min(after - now, HIGHEST_TRACKABLE_NANOS));
        counts[outcome.ordinal()]++;
        done++;
        now = after;
      }
      operations = done;
    }
  }
}
