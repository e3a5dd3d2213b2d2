package dev.sluice.core.metrics;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice_wait_seconds{rule}}: a histogram of the delays admissions were given, the waits of
 * checks booked ahead ({@code maxWait}) and a leaky bucket's shaping delays alike
 * (docs/algorithms.md, "Waiting instead of dropping"). Admissions that proceed at once are not
 * recorded, so its count is how many callers were asked to wait, and its buckets how long.
 */
final class WaitMetrics {
  static final String WAIT = "sluice.wait";

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Timer> byRule = new ConcurrentHashMap<>();

  WaitMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void record(Check check, Decision decision) {
    if (decision.allowed() && decision.delayNanos() > 0) {
      byRule
          .computeIfAbsent(check.ref().label(), this::timer)
          .record(decision.delayNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private Timer timer(String rule) {
    return Timer.builder(WAIT)
        .description("Delays given to admitted checks: waits booked ahead and shaping delays")
        .tag("rule", rule)
        .publishPercentileHistogram()
        .register(registry);
  }
}
