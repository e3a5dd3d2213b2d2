package dev.sluice.rest;

import dev.sluice.core.Decision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The meters of DESIGN §7, named the Micrometer way and exported to Prometheus as:
 *
 * <ul>
 *   <li>{@code sluice_decisions_total{rule, outcome}}: one per decision; outcome is {@code
 *       allowed}, {@code denied}, or {@code shadow_denied} (a shadow rule that would have denied;
 *       the caller was told "allowed"). Inline policies count under {@code rule="~inline"}.
 *   <li>{@code sluice_check_seconds{route, status}}: time to answer a check request, from the first
 *       byte read to the answer written, with a histogram for quantiles in Prometheus.
 *   <li>{@code sluice_keys}: limiter entries this node owns, as the runtime reports them.
 * </ul>
 *
 * Rejected requests (bad input, unknown rule) count nothing in {@code sluice_decisions_total}; they
 * show up in {@code sluice_check_seconds} under their 4xx status.
 */
final class SluiceMetrics {
  static final String DECISIONS = "sluice.decisions";
  static final String CHECK_TIMER = "sluice.check";
  static final String KEYS = "sluice.keys";

  private final MeterRegistry registry;
  private final ConcurrentMap<String, Counter[]> decisionCounters = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Timer> checkTimers = new ConcurrentHashMap<>();

  SluiceMetrics(MeterRegistry registry, LongSupplier keysOwned) {
    this.registry = registry;
    Gauge.builder(KEYS, keysOwned, supplier -> (double) supplier.getAsLong())
        .description("Limiter entries (keys) owned by this node")
        // Micrometer holds gauge objects weakly; the supplier is often a lambda nobody else keeps.
        .strongReference(true)
        .register(registry);
  }

  /** Counts one decision under its rule (or {@code ~inline}). */
  void recordDecision(String ruleLabel, Decision decision) {
    Counter[] counters = decisionCounters.computeIfAbsent(ruleLabel, this::newCounters);
    if (decision.shadowDenied()) {
      counters[2].increment();
    } else if (decision.allowed()) {
      counters[0].increment();
    } else {
      counters[1].increment();
    }
  }

  /** Records how long a check request took. */
  void recordCheck(String route, int status, long elapsedNanos) {
    checkTimers
        .computeIfAbsent(route + ' ' + status, key -> newCheckTimer(route, status))
        .record(elapsedNanos, TimeUnit.NANOSECONDS);
  }

  private Timer newCheckTimer(String route, int status) {
    return Timer.builder(CHECK_TIMER)
        .description("Time to answer a check request")
        .tag("route", route)
        .tag("status", Integer.toString(status))
        .publishPercentileHistogram()
        .register(registry);
  }

  private Counter[] newCounters(String rule) {
    return new Counter[] {
      counter(rule, "allowed"), counter(rule, "denied"), counter(rule, "shadow_denied")
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
