package dev.sluice.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Exactness on the real clock: one key per {@link SaturationCase}, all saturated at once by several
 * threads for a few seconds, every admission judged against its algorithm's bound ({@link
 * AdmissionBounds}). A manual clock cannot show what this shows: a store that forgets a state while
 * it still counts (an entry TTL rounded to whole seconds handed a per-second token bucket a fresh
 * bucket about once a second).
 *
 * <p>A runtime extends this class with {@link #callers()}: limiters that share one state and decide
 * on the system clock (the grid: limiters on several members and over a client). Each test thread
 * calls through them in turn. Bounded in time ({@link #SATURATION}) and in calls per thread.
 */
public abstract class RealClockSaturationContract {
  /** How long every key is saturated. */
  protected static final Duration SATURATION = Duration.ofMillis(3_500);

  private static final int THREADS_PER_CASE = 2;
  private static final int MAX_CALLS_PER_THREAD = 500_000;

  /** How often a steady caller asks its key: warm from 10 a second, steady from 2. */
  private static final int STEADY_CALLS_PER_SECOND = 6;

  /**
   * How often the first caller asks a steady key: with the steady callers, above the limit of 40 a
   * second, so the key is saturated, but not at once, so a steady caller early in a window still
   * finds the eighth of the limit a lease to the end of the window needs.
   */
  private static final int SATURATING_CALLS_PER_SECOND = 50;

  /** How often a warm caller asks its key: 10 a second or more, one every 50 ms, never a burst. */
  private static final int WARM_CALLS_PER_SECOND = 20;

  /**
   * How often the first caller asks a warm key: with the warm callers, above the limit of 100 a
   * second, but not at once, so a warm caller early in a window still finds room for a lease.
   */
  private static final int SATURATING_WARM_CALLS_PER_SECOND = 90;

  /** Limiters on one shared state, deciding on the system clock. */
  protected abstract List<RateLimiter> callers();

  /**
   * Whether the callers hold leases: then the hot cases ({@link SaturationCase#hotKeys()}) run too,
   * and what leases answered is printed beside each case; a leaky bucket's must be nothing. That
   * leases do answer these keys (admissions from a lease on every algorithm that leases, denials
   * from a paced one at the sliding window's limit, steady and warm callers leased to the end of
   * the fixed window) is a property of the lease policy, not of exactness: it is checked on a
   * virtual clock, where it is deterministic, by the lease-policy simulator's tests (benchmarks,
   * {@code dev.sluice.bench.lease.LeaseLivenessTest}), not here on the real clock of a loaded
   * machine.
   */
  protected boolean holdsLeases() {
    return false;
  }

  /**
   * The keys to saturate: {@link SaturationCase#all()}, and the hot ones ({@link
   * SaturationCase#hotKeys()}) where leases are held.
   */
  protected List<SaturationCase> cases() {
    if (!holdsLeases()) {
      return SaturationCase.all();
    }
    List<SaturationCase> cases = new ArrayList<>(SaturationCase.all());
    cases.addAll(SaturationCase.hotKeys());
    return cases;
  }

  @Test
  void everyAlgorithm_oneKeySaturatedOnTheRealClock_admitsNoMoreThanItsBound() throws Exception {
    List<Run> runs = runsOf("sat", cases());
    List<Load> loads = new ArrayList<>();
    for (Run run : runs) {
      for (int t = 0; t < THREADS_PER_CASE; t++) {
        int first = t;
        loads.add(deadline -> run.hammer(callers(), first, deadline));
      }
    }
    runTogether(loads);
    judge(
        runs,
        "",
        "by lease",
        run -> {
          boolean leases =
              run.c.policy().limits().stream()
                  .noneMatch(l -> l.algorithm() == Algorithm.LEAKY_BUCKET);
          if (run.byLease.get() > 0 && (!holdsLeases() || !leases)) {
            return Optional.of(
                run.c.name() + ": " + run.byLease.get() + " admissions from a lease");
          }
          return Optional.empty();
        });
  }

  /**
   * Steady keys ({@link SaturationCase#steadyKeys()}) where leases are held: every caller but the
   * first asks the key about {@value #STEADY_CALLS_PER_SECOND} times a second, so that it leases to
   * the end of the window, while the first, at {@value #SATURATING_CALLS_PER_SECOND} a second,
   * takes the key past its limit in each window. Every admission is judged as above; the steady
   * callers' admissions from a lease are printed.
   */
  @Test
  void steadyCallers_leasedToTheEndOfTheWindow_admitNoMoreThanTheBound() throws Exception {
    besideASaturatingCaller(
        "std",
        SaturationCase.steadyKeys(),
        STEADY_CALLS_PER_SECOND,
        SATURATING_CALLS_PER_SECOND,
        "steady");
  }

  /**
   * Warm keys ({@link SaturationCase#warmKeys()}) where leases are held: every caller but the first
   * asks the key {@value #WARM_CALLS_PER_SECOND} times a second, evenly (warm, never a burst), so
   * that it asks for a lease to the end of the window, granted on the window algorithms while the
   * key has room and answered with a short or paced one where not (the token bucket, the key at its
   * limit); the first, at {@value #SATURATING_WARM_CALLS_PER_SECOND} a second, takes the key past
   * its limit. Judged as above; the warm callers' admissions from a lease are printed.
   */
  @Test
  void warmCallers_leasedToTheEndOfTheWindowOrShortly_admitNoMoreThanTheBound() throws Exception {
    besideASaturatingCaller(
        "warm",
        SaturationCase.warmKeys(),
        WARM_CALLS_PER_SECOND,
        SATURATING_WARM_CALLS_PER_SECOND,
        "warm");
  }

  /**
   * Every case's key asked by each caller but the first {@code callsPerSecond} times a second and
   * by the first {@code saturatingPerSecond} times, evenly; judged, with the admissions of the
   * other callers' leases in a column of their own.
   */
  private void besideASaturatingCaller(
      String prefix,
      List<SaturationCase> cases,
      int callsPerSecond,
      int saturatingPerSecond,
      String callers)
      throws Exception {
    Assumptions.assumeTrue(holdsLeases() && callers().size() >= 2, "callers that hold leases");
    List<Run> runs = runsOf(prefix, cases);
    List<Load> loads = new ArrayList<>();
    for (Run run : runs) {
      for (int caller = 0; caller < callers().size(); caller++) {
        RateLimiter limiter = callers().get(caller);
        boolean paced = caller > 0;
        long pauseNanos =
            TimeUnit.SECONDS.toNanos(1) / (paced ? callsPerSecond : saturatingPerSecond);
        loads.add(deadline -> run.pace(limiter, pauseNanos, paced, deadline));
      }
    }
    runTogether(loads);
    judge(runs, ", " + callers + " callers", callers + " by lease", run -> Optional.empty());
  }

  /** One thread's calls until the deadline ({@link System#nanoTime()}). */
  @FunctionalInterface
  private interface Load {
    void run(long deadlineNanos) throws Exception;
  }

  /** A run per case, each with a rule of its own (a fresh name, so reruns never share state). */
  private List<Run> runsOf(String prefix, List<SaturationCase> cases) {
    String unique =
        prefix + Long.toString(ThreadLocalRandom.current().nextLong() & 0xffffff, 36) + "-";
    List<Run> runs = new ArrayList<>();
    for (SaturationCase c : cases) {
      callers().get(0).rules().put(new Rule(unique + c.name(), c.policy()));
      runs.add(new Run(c, unique + c.name()));
    }
    return runs;
  }

  /** Runs every load on a thread of its own for {@link #SATURATION}, all starting together. */
  private static void runTogether(List<Load> loads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(loads.size());
    try {
      // Every thread starts before the clock does: on a loaded machine the last threads of a pool
      // can start seconds after the first, and a case whose threads never ran would prove nothing.
      CountDownLatch started = new CountDownLatch(loads.size());
      CountDownLatch go = new CountDownLatch(1);
      AtomicLong deadline = new AtomicLong();
      List<Future<?>> threads = new ArrayList<>();
      for (Load load : loads) {
        threads.add(
            pool.submit(
                () -> {
                  started.countDown();
                  if (go.await(60, TimeUnit.SECONDS)) {
                    load.run(deadline.get());
                  }
                  return null;
                }));
      }
      assertThat(started.await(60, TimeUnit.SECONDS)).as("every load thread started").isTrue();
      deadline.set(System.nanoTime() + SATURATION.toNanos());
      go.countDown();
      for (Future<?> thread : threads) {
        thread.get(SATURATION.toMillis() + 60_000, TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Prints what every run saw and fails if a key was never denied (not saturated), if {@code check}
   * objects to a run, or if any run admitted more than its bound.
   */
  private void judge(
      List<Run> runs, String title, String byLease, Function<Run, Optional<String>> check) {
    List<String> failures = new ArrayList<>();
    StringBuilder table =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%n%-24s %9s %15s %9s %16s%n",
                "case",
                "admitted",
                byLease,
                "denied",
                "denied by lease"));
    for (Run run : runs) {
      table.append(
          String.format(
              Locale.ROOT,
              "%-24s %9d %15d %9d %16d%n",
              run.c.name(),
              run.admitted.size(),
              run.byLease.get(),
              run.denied.get(),
              run.deniedByLease.get()));
      if (run.denied.get() == 0) {
        failures.add(run.c.name() + ": never denied, so the key was not saturated");
      }
      check.apply(run).ifPresent(failures::add);
      AdmissionBounds.violation(run.c.policy(), List.copyOf(run.admitted))
          .ifPresent(v -> failures.add(run.c.name() + " (" + run.c.policy() + "): " + v));
    }
    System.out.println(
        getClass().getSimpleName() + title + ", " + SATURATION.toMillis() + " ms:" + table);
    assertThat(failures).as("over-admissions on the real clock%s", table).isEmpty();
  }

  /** One case's key and what its threads saw. */
  private static final class Run {
    final SaturationCase c;
    final String rule;
    final String key = "hot";
    final ConcurrentLinkedQueue<Admission> admitted = new ConcurrentLinkedQueue<>();
    final AtomicLong denied = new AtomicLong();
    final AtomicLong byLease = new AtomicLong();
    final AtomicLong deniedByLease = new AtomicLong();

    Run(SaturationCase c, String rule) {
      this.c = c;
      this.rule = rule;
    }

    /**
     * Calls through {@code limiter} until the deadline, pausing {@code pauseNanos} between calls;
     * counts as by lease only a {@code steady} caller's lease answers.
     */
    void pace(RateLimiter limiter, long pauseNanos, boolean steady, long deadlineNanos)
        throws InterruptedException {
      TimeSource clock = TimeSource.system();
      for (int i = 0; i < MAX_CALLS_PER_THREAD && System.nanoTime() < deadlineNanos; i++) {
        long sent = clock.nowNanos();
        Decision decision = limiter.tryAcquire(rule, key);
        long answered = clock.nowNanos();
        if (decision.allowed()) {
          admitted.add(new Admission(sent, answered));
          if (steady && decision.decidedBy() == Decision.DecidedBy.LEASE) {
            byLease.incrementAndGet();
          }
        } else {
          denied.incrementAndGet();
        }
        TimeUnit.NANOSECONDS.sleep(pauseNanos);
      }
    }

    void hammer(List<RateLimiter> callers, int first, long deadlineNanos) {
      TimeSource clock = TimeSource.system();
      for (int i = 0; i < MAX_CALLS_PER_THREAD && System.nanoTime() < deadlineNanos; i++) {
        RateLimiter limiter = callers.get((first + i) % callers.size());
        long sent = clock.nowNanos();
        Decision decision = limiter.tryAcquire(rule, key);
        long answered = clock.nowNanos();
        if (decision.allowed()) {
          admitted.add(new Admission(sent, answered));
          if (decision.decidedBy() == Decision.DecidedBy.LEASE) {
            byLease.incrementAndGet();
          }
        } else {
          denied.incrementAndGet();
          if (decision.decidedBy() == Decision.DecidedBy.LEASE) {
            deniedByLease.incrementAndGet();
          }
        }
      }
    }
  }
}
