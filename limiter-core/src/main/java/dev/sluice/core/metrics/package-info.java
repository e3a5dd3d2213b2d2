/**
 * Decision metrics, recorded the same way by every runtime: {@link
 * dev.sluice.core.metrics.MeteredRateLimiter} in front of a local limiter, an embedded member, an
 * SDK client or a REST node.
 */
@NullMarked
package dev.sluice.core.metrics;

import org.jspecify.annotations.NullMarked;
