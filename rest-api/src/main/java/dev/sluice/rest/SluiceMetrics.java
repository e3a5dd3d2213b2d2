package dev.sluice.rest;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The REST node's own meters (docs/rest-api.md, "Metrics"), named the Micrometer way and exported
 * to Prometheus as:
 *
 * <ul>
 *   <li>{@code sluice_check_seconds{route, status}}: time to answer a check request, from the first
 *       byte read to the answer written, with a histogram for quantiles in Prometheus.
 *   <li>{@code sluice_keys}: limiter entries this node owns, as the runtime reports them.
 * </ul>
 *
 * Decisions are counted where every runtime counts them, {@link
 * dev.sluice.core.metrics.DecisionMetrics} ({@code sluice_decisions_total}); rejected requests (bad
 * input, unknown rule) count nothing there and show up here under their 4xx status.
 */
final class SluiceMetrics {
  static final String CHECK_TIMER = "sluice.check";
  static final String KEYS = "sluice.keys";

  private final MeterRegistry registry;
  private final ConcurrentMap<String, Timer> checkTimers = new ConcurrentHashMap<>();

  SluiceMetrics(MeterRegistry registry, LongSupplier keysOwned) {
    this.registry = registry;
    Gauge.builder(KEYS, keysOwned, supplier -> (double) supplier.getAsLong())
        .description("Limiter entries (keys) owned by this node")
        // Micrometer holds gauge objects weakly; the supplier is often a lambda nobody else keeps.
        .strongReference(true)
        .register(registry);
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
}
