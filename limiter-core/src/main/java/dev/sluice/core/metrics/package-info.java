/**
 * Decision metrics, recorded the same way by every runtime: {@link
 * dev.sluice.core.metrics.DecisionMetrics}, the recorder of a local limiter's, an embedded
 * member's, an SDK client's or a REST node's pipeline.
 *
 * <p>Start with {@link dev.sluice.core.metrics.DecisionMetrics}; the others count what only some
 * runtimes do (leases, waits, reservations, permits in flight).
 */
@NullMarked
package dev.sluice.core.metrics;

import org.jspecify.annotations.NullMarked;
