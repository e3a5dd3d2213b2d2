/**
 * The Java client. Start with {@link dev.sluice.client.SluiceClient}: a {@link
 * dev.sluice.core.RateLimiter} over a Hazelcast client (one hop to the key's owner) or in front of
 * any limiter, with a denied-until cache for the attack path, per-key coalescing for hot keys, and
 * a {@link dev.sluice.client.FailurePolicy} with a circuit breaker for outages. HTTP middleware is
 * in {@link dev.sluice.client.middleware}.
 */
@NullMarked
package dev.sluice.client;

import org.jspecify.annotations.NullMarked;
