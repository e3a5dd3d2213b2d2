package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.AdmissionBound;
import dev.sluice.bench.load.exactness.AdmissionTally;
import dev.sluice.bench.load.exactness.EpochClock;
import dev.sluice.bench.load.exactness.Exactness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

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
 *
 * <p>Where the workload counts exactness and the contender says which rule it enforces, every
 * admission is also tallied per key per sub-window ({@link AdmissionTally}, one per thread, no
 * sharing) with the {@code nanoTime} readings the loop takes anyway, and judged after the round
 * ({@link Exactness#judge}).
 *
 * <p>A round may start with a lead-in ({@link Workload#leadIn}): the threads call as in the round,
 * and their admissions are tallied and judged, but the lead-in's decisions count in neither
 * throughput nor latency. Rounds of different contenders are interleaved, so each contender comes
 * to its round after sitting idle through the others'; the lead-in lets it (and its server) run
 * again before the clock starts, whoever ran just before it.
 */
public final class LoadDriver {
  /** The base seed of the key sequences; printed in the report so a run can be repeated. */
  public static final long SEED = 0x511CE5L;

  private static final long HIGHEST_TRACKABLE_NANOS = Duration.ofMinutes(1).toNanos();

  /**
   * How far before a request was sent its decision's clock may read: Bucket4j truncates to the
   * millisecond.
   */
  static final long CLOCK_SLACK_NANOS = Duration.ofMillis(1).toNanos();

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
    return round(contender, workload, Duration.ZERO, duration, maxOps);
  }

  /**
   * One round after a lead-in of {@code leadIn} (at most {@code maxOps} decisions, tallied, not
   * measured), then at most {@code duration} and at most {@code maxOps} decisions measured.
   */
  public static RoundResult round(
      Contender contender, Workload workload, Duration leadIn, Duration duration, long maxOps) {
    int threads = workload.threads();
    AdmissionBound bound =
        workload.countExactness()
            ? contender.enforced().map(AdmissionBound::of).orElse(null)
            : null;
    Threads ran =
        Threads.run(
            t -> contender,
            threads,
            workload.keys(),
            bound,
            leadIn,
            duration,
            Math.max(1, maxOps / threads));
    return ran.result(0, threads, ran.exactness());
  }

  /**
   * The threads of one round after they stopped: each one's private counters, and the measured time
   * from the start signal until the last one stopped. A scenario whose threads stand for different
   * callers (S10: the threads of two regions) gives each its own contender and reads the counters
   * per group ({@link #result}), while exactness is judged over all of them ({@link #exactness}).
   */
  static final class Threads {
    private final Worker[] workers;
    private final long elapsedNanos;
    private final KeySpace keys;
    private final @Nullable AdmissionBound bound;
    private final long leadInNanos;

    private Threads(
        Worker[] workers,
        long elapsedNanos,
        KeySpace keys,
        @Nullable AdmissionBound bound,
        long leadInNanos) {
      this.workers = workers;
      this.elapsedNanos = elapsedNanos;
      this.keys = keys;
      this.bound = bound;
      this.leadInNanos = leadInNanos;
    }

    /**
     * Runs {@code threads} closed-loop threads, thread {@code t} calling {@code contenderOf(t)}: a
     * lead-in of {@code leadIn} (tallied, not measured), then at most {@code duration} and at most
     * {@code opsPerThread} measured decisions per thread. With a {@code bound}, every admission is
     * tallied for it.
     */
    static Threads run(
        IntFunction<Contender> contenderOf,
        int threads,
        KeySpace keys,
        @Nullable AdmissionBound bound,
        Duration leadIn,
        Duration duration,
        long opsPerThread) {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      Worker[] workers = new Worker[threads];
      Thread[] running = new Thread[threads];
      long[] times = new long[2]; // when the measured part starts, and its deadline
      EpochClock clock = EpochClock.calibrate();
      long roundStartEpoch = clock.epochNanos(System.nanoTime());
      for (int t = 0; t < threads; t++) {
        AdmissionTally tally =
            bound == null
                ? null
                : new AdmissionTally(bound.subWindowNanos(), CLOCK_SLACK_NANOS, roundStartEpoch);
        Worker worker =
            new Worker(
                contenderOf.apply(t),
                keys,
                new SplittableRandom(SEED + t),
                opsPerThread,
                clock,
                tally);
        workers[t] = worker;
        running[t] =
            new Thread(
                () -> {
                  ready.countDown();
                  awaitQuietly(go);
                  worker.run(times[0], times[1]);
                },
                "load-" + t);
        running[t].setDaemon(true);
        running[t].start();
      }
      awaitQuietly(ready);
      long start = System.nanoTime() + leadIn.toNanos();
      times[0] = start;
      times[1] = start + duration.toNanos();
      go.countDown();
      for (Thread thread : running) {
        joinQuietly(thread, leadIn.plus(duration).plusSeconds(30));
      }
      return new Threads(workers, System.nanoTime() - start, keys, bound, leadIn.toNanos());
    }

    /**
     * What threads {@code from} (inclusive) to {@code to} (exclusive) measured, over the round's
     * time, with {@code exactness} as judged by the caller (null: not counted).
     */
    RoundResult result(int from, int to, @Nullable Exactness exactness) {
      Histogram merged = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
      Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
      long operations = 0;
      String firstError = null;
      for (Worker worker : Arrays.copyOfRange(workers, from, to)) {
        merged.add(worker.latency);
        operations += worker.operations;
        for (Outcome outcome : Outcome.values()) {
          outcomes.merge(outcome, worker.counts[outcome.ordinal()], Long::sum);
        }
        if (firstError == null && worker.firstError.get() != null) {
          firstError = worker.firstError.get();
        }
      }
      return new RoundResult(
          operations, elapsedNanos, Latency.of(merged), outcomes, firstError, exactness);
    }

    /**
     * Admissions per second of the key with index 0 (a Zipf workload's hottest key), over the
     * lead-in and the measured part, all threads; 0 without a bound (nothing is tallied).
     */
    double firstKeyAdmittedPerSecond() {
      long admitted = 0;
      for (Worker worker : workers) {
        admitted += worker.tally == null ? 0 : worker.tally.firstKeyAdmitted();
      }
      return admitted * 1e9 / (leadInNanos + elapsedNanos);
    }

    /** Every thread's admissions judged together against the bound; null without one. */
    @Nullable Exactness exactness() {
      if (bound == null) {
        return null;
      }
      List<AdmissionTally> tallies = new ArrayList<>();
      for (Worker worker : workers) {
        tallies.add(Objects.requireNonNull(worker.tally, "a tally per thread with a bound"));
      }
      return Exactness.judge(tallies, bound, keys::key);
    }
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
    private final EpochClock clock;
    private final @Nullable AdmissionTally tally;
    private volatile long operations;

    Worker(
        Contender contender,
        KeySpace keys,
        SplittableRandom random,
        long maxOps,
        EpochClock clock,
        @Nullable AdmissionTally tally) {
      this.contender = contender;
      this.keys = keys;
      this.random = random;
      this.maxOps = maxOps;
      this.clock = clock;
      this.tally = tally;
    }

    // The deadline is read once per call; nanoTime costs ~20 ns, far below any decision here.
    void run(long measureFromNanos, long deadlineNanos) {
      long now = System.nanoTime();
      for (long led = 0;
          led < maxOps && now < measureFromNanos && !Thread.currentThread().isInterrupted();
          led++) {
        now = call(now, false);
      }
      // A lead-in cut short by its count waits for the measured part, whose clock starts then.
      while (now < measureFromNanos && !Thread.currentThread().isInterrupted()) {
        LockSupport.parkNanos(measureFromNanos - now);
        now = System.nanoTime();
      }
      long done = 0;
      while (done < maxOps && now < deadlineNanos && !Thread.currentThread().isInterrupted()) {
        now = call(now, true);
        done++;
      }
      operations = done;
    }

    /**
     * One decision sent at {@code sentAt}; returns the clock after it. Every admission is tallied;
     * only a {@code measured} call counts in latency, outcomes and errors.
     */
    private long call(long sentAt, boolean measured) {
      int key = keys.next(random);
      Outcome outcome;
      try {
        outcome = contender.decide(keys.key(key));
      } catch (Exception | LinkageError e) {
        outcome = Outcome.ERROR;
        if (measured) {
          firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      }
      long after = System.nanoTime();
      if (measured) {
        latency.recordValue(Math.min(after - sentAt, HIGHEST_TRACKABLE_NANOS));
        counts[outcome.ordinal()]++;
      }
      if (tally != null && outcome.admitted()) {
        tally.record(key, clock.epochNanos(sentAt), clock.epochNanos(after));
      }
      return after;
    }
  }
}
