package dev.sluice.core.metrics;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.DecisionRecorder;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import dev.sluice.core.stats.NodeStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Records every decision a limiter's callers get, the same on every runtime (docs/rest-api.md,
 * "Metrics"), as its pipeline's {@link DecisionRecorder}:
 *
 * <ul>
 *   <li>{@code sluice_decisions_total{rule, outcome}}: one per decision; outcome {@code allowed},
 *       {@code denied}, {@code shadow_denied} (a shadow rule that would have denied; the caller was
 *       told "allowed") or {@code shadow_banned} (a denial under a rule that shadow-bans: an HTTP
 *       gate let it through marked). Inline policies count under {@code rule="~inline"}.
 *   <li>{@code sluice_decision_seconds}: how long a decision took, with a histogram; a batch counts
 *       once, for all its checks. A single check answered from what the limiter holds here (a
 *       lease, a cached denial) is not timed: it takes nanoseconds, and the histogram would cost
 *       more than the answer itself.
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
 * nothing. Releases, peeks and resets are not recorded. A limiter that holds leases also gets its
 * {@link LeaseMetrics}.
 *
 * <p>Given a node's {@link NodeStats}, every decision is also counted there for the node's console
 * (per-second rates, latency, the keys being denied), at the cost of a map lookup and a striped
 * counter increment per decision, five more per timed single check (three for the whole node's
 * histogram, two for the rule's mean), and a compare-and-set per denial.
 */
public final class DecisionMetrics implements DecisionRecorder {

  public static final String DECISIONS = "sluice.decisions";
  public static final String DECISION_TIMER = "sluice.decision";

  private final MeterRegistry registry;
  private final Timer timer;
  private final ConcurrentHashMap<String, Counter[]> counters = new ConcurrentHashMap<>();
  private final WaitMetrics waits;
  private final PermitsInFlight permits;
  private final ReservationMetrics reservations;
  private final @Nullable NodeStats stats;

  /**
   * The meters of the limiter over {@code stack}, registered in {@code registry}, and its decisions
   * counted in a node's console {@code stats} too (null: none).
   */
  public DecisionMetrics(MeterRegistry registry, BackendStack stack, @Nullable NodeStats stats) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.stats = stats;
    this.timer =
        Timer.builder(DECISION_TIMER)
            .description("Time to decide a check or a batch of checks")
            .publishPercentileHistogram()
            .register(registry);
    this.waits = new WaitMetrics(registry);
    this.permits = new PermitsInFlight(registry, System::nanoTime);
    this.reservations =
        new ReservationMetrics(stack.storage().reservationsSettledAtEstimate(), registry);
    LeaseMetrics.bind(stack.leaseStatistics(), registry);
  }

  /**
   * {@code limiter} recording its decisions into {@code registry}: {@code limiter} itself if it
   * already does, so that a decision is never counted twice, otherwise a limiter over the same
   * stack (the same storage and leases) that does.
   *
   * @throws IllegalArgumentException for a limiter that is not a pipeline's: only a pipeline knows
   *     where each answer came from
   */
  public static RateLimiter record(RateLimiter limiter, MeterRegistry registry) {
    return record(limiter, registry, null);
  }

  /**
   * As {@link #record(RateLimiter, MeterRegistry)}, counting into a node's console {@code stats}
   * too where a new recorder is made: a limiter that records into {@code registry} already (a
   * client-mode node's SDK client, given the node's stats) is kept, so that the node's registry and
   * console see every decision exactly once.
   */
  public static RateLimiter record(
      RateLimiter limiter, MeterRegistry registry, @Nullable NodeStats stats) {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(registry, "registry");
    if (!(limiter instanceof PipelineRateLimiter pipeline)) {
      throw new IllegalArgumentException(
          "only a pipeline limiter (local, grid, SDK client) records its decisions; got "
              + limiter.getClass().getName());
    }
    if (pipeline.recorder() instanceof DecisionMetrics metrics && metrics.registry == registry) {
      return pipeline;
    }
    return pipeline.recordingInto(new DecisionMetrics(registry, pipeline.stack(), stats));
  }

  @Override
  public void decided(Check check, Decision decision, long startNanos) {
    Decision.DecidedBy by = decision.decidedBy();
    if (by != Decision.DecidedBy.LEASE && by != Decision.DecidedBy.DENIED_CACHE) {
      timed(startNanos, check);
    }
    record(check, decision);
  }

  @Override
  public void decidedAll(List<Check> checks, List<Decision> decisions, long startNanos) {
    timed(startNanos);
    for (int i = 0; i < decisions.size(); i++) {
      record(checks.get(i), decisions.get(i));
    }
  }

  @Override
  public void reserved(Check check, Reservation reservation, long startNanos) {
    timed(startNanos, check);
    record(check, reservation.decision());
    reservations.reserved(reservation);
  }

  @Override
  public void committed() {
    reservations.committed();
  }

  @Override
  public void permitReleased(PolicyRef ref, String key, long permitId) {
    permits.released(ref, key, permitId);
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
