package dev.sluice.core.metrics;

import dev.sluice.core.AnswersLocally;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.RuleStore;
import dev.sluice.core.stats.NodeStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Records every decision of the limiter it wraps, the same on every runtime (docs/rest-api.md,
 * "Metrics"):
 *
 * <ul>
 *   <li>{@code sluice_decisions_total{rule, outcome}}: one per decision; outcome {@code allowed},
 *       {@code denied}, {@code shadow_denied} (a shadow rule that would have denied; the caller was
 *       told "allowed") or {@code shadow_banned} (a denial under a rule that shadow-bans: an HTTP
 *       gate let it through marked). Inline policies count under {@code rule="~inline"}.
 *   <li>{@code sluice_decision_seconds}: how long a decision took, with a histogram; a batch counts
 *       once, for all its checks. A single check answered from what the limiter holds here (a
 *       lease, a cached denial) is not timed ({@link #tryAcquire}, {@link #tryAcquireAsync}).
 *   <li>{@code sluice_wait_seconds{rule}}: the delays admissions were given ({@link WaitMetrics}).
 *   <li>{@code sluice_permits_total{event}} and {@code sluice_permits_in_flight}: concurrency
 *       permits taken and given back through this limiter ({@link PermitsInFlight}).
 *   <li>{@code sluice_reservations_total{event}} and {@code sluice_reservations_expired_total}:
 *       reservations made, committed, and settled at their estimate ({@link ReservationMetrics}). A
 *       reservation's estimate is a decision like a check's and counts in {@code
 *       sluice_decisions_total} too.
 * </ul>
 *
 * Refused requests (an unknown rule, a cost above the capacity) are not decisions and count
 * nothing. Releases, peeks and resets pass through unrecorded. A limiter that holds leases also
 * gets its {@link LeaseMetrics}.
 *
 * <p>Given a node's {@link NodeStats}, every decision is also counted there for the node's console
 * (per-second rates, latency, the keys being denied), at the cost of a map lookup and a striped
 * counter increment per decision, five more per timed single check (three for the whole node's
 * histogram, two for the rule's mean), and a compare-and-set per denial.
 */
public final class MeteredRateLimiter implements RateLimiter, RecordsDecisions {

  public static final String DECISIONS = "sluice.decisions";
  public static final String DECISION_TIMER = "sluice.decision";

  private final RateLimiter delegate;
  private final @Nullable AnswersLocally local;
  private final MeterRegistry registry;
  private final Timer timer;
  private final @Nullable NodeStats stats;
  private final ConcurrentHashMap<String, Counter[]> counters = new ConcurrentHashMap<>();
  private final WaitMetrics waits;
  private final PermitsInFlight permits;
  private final ReservationMetrics reservations;

  private MeteredRateLimiter(
      RateLimiter delegate, MeterRegistry registry, @Nullable NodeStats stats) {
    this.delegate = delegate;
    this.stats = stats;
    this.local = delegate instanceof AnswersLocally answers ? answers : null;
    this.registry = registry;
    this.timer =
        Timer.builder(DECISION_TIMER)
            .description("Time to decide a check or a batch of checks")
            .publishPercentileHistogram()
            .register(registry);
    this.waits = new WaitMetrics(registry);
    this.permits = new PermitsInFlight(registry, System::nanoTime);
    this.reservations = new ReservationMetrics(delegate, registry);
    LeaseMetrics.bind(delegate, registry);
  }

  /**
   * {@code limiter} recording into {@code registry}; {@code limiter} itself if it already does, so
   * that a decision is never counted twice.
   */
  public static RateLimiter wrap(RateLimiter limiter, MeterRegistry registry) {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(registry, "registry");
    if (limiter instanceof RecordsDecisions recording && recording.decisionRegistry() == registry) {
      return limiter;
    }
    return new MeteredRateLimiter(limiter, registry, null);
  }

  /**
   * {@code limiter} recording into {@code registry} and into a node's console {@code stats}. It
   * wraps even a limiter that records already (e.g. an SDK client whose own registry counts its
   * local answers), so that the node's registry and console see every decision exactly once.
   */
  public static RateLimiter wrap(RateLimiter limiter, MeterRegistry registry, NodeStats stats) {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(stats, "stats");
    return new MeteredRateLimiter(limiter, registry, stats);
  }

  @Override
  public MeterRegistry decisionRegistry() {
    return registry;
  }

  /** The limiter whose decisions are recorded. */
  public RateLimiter delegate() {
    return delegate;
  }

  /**
   * A check the limiter behind can answer from what it holds here (a lease, a cached denial: {@link
   * AnswersLocally}) is counted but not timed: it takes nanoseconds, and the timer's two clock
   * reads and histogram would cost more than the answer itself. {@code sluice_decision_seconds}
   * times the decisions that went to the key's owner.
   */
  @Override
  public Decision tryAcquire(Check check) {
    if (local != null) {
      Decision answered = local.tryAcquireLocally(check);
      if (answered != null) {
        record(check, answered);
        return answered;
      }
    }
    long start = System.nanoTime();
    Decision decision = delegate.tryAcquire(check);
    timed(start, check);
    record(check, decision);
    return decision;
  }

  /** As {@link #tryAcquire}: a local answer first, counted but not timed. */
  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    if (local != null) {
      Decision answered = local.tryAcquireLocally(check);
      if (answered != null) {
        record(check, answered);
        return CompletableFuture.completedFuture(answered);
      }
    }
    long start = System.nanoTime();
    return delegate
        .tryAcquireAsync(check)
        .whenComplete(
            (decision, failure) -> {
              if (decision != null) {
                timed(start, check);
                record(check, decision);
              }
            });
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    long start = System.nanoTime();
    List<Decision> decisions = delegate.tryAcquireAll(checks);
    timed(start);
    recordAll(checks, decisions);
    return decisions;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    long start = System.nanoTime();
    return delegate
        .tryAcquireAllAsync(checks)
        .whenComplete(
            (decisions, failure) -> {
              if (decisions != null) {
                timed(start);
                recordAll(checks, decisions);
              }
            });
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    long start = System.nanoTime();
    BatchOutcome outcome = delegate.tryAcquireAll(checks, mode);
    timed(start);
    recordAll(checks, outcome.decisions());
    return outcome;
  }

  @Override
  public Decision release(Check check) {
    return delegate.release(check);
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    Decision decision = delegate.releasePermit(ref, key, permitId);
    permits.released(ref, key, permitId);
    return decision;
  }

  @Override
  public Reservation reserve(Check check, Duration ttl) {
    long start = System.nanoTime();
    Reservation reservation = delegate.reserve(check, ttl);
    timed(start, check);
    record(check, reservation.decision());
    reservations.reserved(reservation);
    return reservation;
  }

  @Override
  public Decision commit(String reservationId, long cost) {
    Decision decision = delegate.commit(reservationId, cost);
    reservations.committed();
    return decision;
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return delegate.peek(ref, key);
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    delegate.reset(ref, key);
  }

  @Override
  public RuleStore rules() {
    return delegate.rules();
  }

  private void recordAll(List<Check> checks, List<Decision> decisions) {
    for (int i = 0; i < decisions.size(); i++) {
      record(checks.get(i), decisions.get(i));
    }
  }

  private long timed(long startNanos) {
    long nanos = System.nanoTime() - startNanos;
    timer.record(nanos, TimeUnit.NANOSECONDS);
    if (stats != null) {
      stats.recordLatency(nanos);
    }
    return nanos;
  }

  /** As {@link #timed(long)}, for one check: its rule's latency too, in the node's stats. */
  private void timed(long startNanos, Check check) {
    long nanos = timed(startNanos);
    if (stats != null) {
      stats.tally(check.ref().label()).recordLatency(nanos);
    }
  }

  /** Counts one decision under its rule (or {@code ~inline}). */
  private void record(Check check, Decision decision) {
    waits.record(check, decision);
    permits.acquired(check, decision);
    Counter[] byOutcome = counters.computeIfAbsent(check.ref().label(), this::newCounters);
    if (decision.shadowDenied()) {
      byOutcome[2].increment();
    } else if (decision.shadowBanned()) {
      byOutcome[3].increment();
    } else if (decision.allowed()) {
      byOutcome[0].increment();
    } else {
      byOutcome[1].increment();
    }

    if (stats != null) {
      stats.tally(check.ref().label()).record(check, decision);
    }
  }

  private Counter[] newCounters(String rule) {
    return new Counter[] {
      counter(rule, "allowed"),
      counter(rule, "denied"),
      counter(rule, "shadow_denied"),
      counter(rule, "shadow_banned")
    };
  }

  private Counter counter(String rule, String outcome) {
    return Counter.builder(DECISIONS)
        .description("Rate-limit decisions by rule and outcome")
        .tag("rule", rule)
        .tag("outcome", outcome)
        .register(registry);
  }
}
