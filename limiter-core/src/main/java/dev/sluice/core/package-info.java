/**
 * Sluice's public model: what a limit is ({@link dev.sluice.core.Policy}, {@link
 * dev.sluice.core.Rule}), what a decision says ({@link dev.sluice.core.Decision}), and the one
 * interface every runtime implements ({@link dev.sluice.core.RateLimiter}).
 *
 * <p>Start with {@link dev.sluice.core.RateLimiter}. The math lives in {@link
 * dev.sluice.core.algorithm}; the Hazelcast binding in {@code dev.sluice.core.grid}.
 */
@NullMarked
package dev.sluice.core;

import org.jspecify.annotations.NullMarked;
