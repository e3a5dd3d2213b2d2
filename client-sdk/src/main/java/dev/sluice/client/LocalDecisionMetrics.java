package dev.sluice.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The client's counters (docs/client.md, "Metrics"): {@code
 * sluice_client_local_decisions_total{reason}} counts the answers made without the grid, and {@code
 * sluice_client_denied_cache_misses_total} the lookups that had to go to the grid, so the denied
 * cache's hit rate is {@code denied_cache / (denied_cache + misses)}.
 */
final class LocalDecisionMetrics {
  static final String LOCAL_DECISIONS = "sluice.client.local.decisions";
  static final String DENIED_CACHE_MISSES = "sluice.client.denied.cache.misses";

  /**
   * {@code sluice_client_breaker_open}: 1 while the breaker is open, i.e. the grid failed recently
   * and every call is answered by the failure policy without trying it.
   */
  static final String BREAKER_OPEN = "sluice.client.breaker.open";

  final Counter deniedCache;
  final Counter failOpen;
  final Counter failClosed;
  final Counter deniedCacheMisses;

  LocalDecisionMetrics(MeterRegistry registry, CircuitBreaker breaker) {
    this.deniedCache = local(registry, "denied_cache");
    this.failOpen = local(registry, "fail_open");
    this.failClosed = local(registry, "fail_closed");
    this.deniedCacheMisses =
        Counter.builder(DENIED_CACHE_MISSES)
            .description("Requests the denied-until cache could not answer, sent to the grid")
            .register(registry);
    Gauge.builder(BREAKER_OPEN, breaker, b -> b.isOpen() ? 1 : 0)
        .description(
            "1 while the client's breaker is open: calls are answered by the failure policy")
        .register(registry);
  }

  private static Counter local(MeterRegistry registry, String reason) {
    return Counter.builder(LOCAL_DECISIONS)
        .description("Decisions the client made without the grid, by reason")
        .tag("reason", reason)
        .register(registry);
  }
}
