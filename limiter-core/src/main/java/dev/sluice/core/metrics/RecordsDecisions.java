package dev.sluice.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * A limiter that records its own decisions into a registry: a {@link MeteredRateLimiter}, or a
 * decorator chain with one at its head (the SDK's client). {@link MeteredRateLimiter#wrap} does not
 * wrap it again for the same registry, so no decision is counted twice.
 */
public interface RecordsDecisions {
  /** The registry every decision of this limiter is recorded in. */
  MeterRegistry decisionRegistry();
}
