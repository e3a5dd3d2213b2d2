/**
 * Sluice's public model: what a limit is ({@link dev.sluice.core.Policy}, {@link
 * dev.sluice.core.Rule}), what a decision says ({@link dev.sluice.core.Decision}), and the one
 * interface every runtime implements ({@link dev.sluice.core.RateLimiter}).
 *
 * <p>Start with {@link dev.sluice.core.RateLimiter}. The packages, from the bottom up: the math in
 * {@code algorithm}; the decision a key's owner takes in {@code decision}; the seam to a runtime's
 * storage and its shared layers in {@code backend}; leases in {@code lease}; the one pipeline of
 * every runtime in {@code pipeline}; the runtimes in {@code local} and {@code grid} (with {@code
 * grid.member}, {@code grid.wire} and {@code grid.transport}). docs/architecture.md draws them.
 */
@NullMarked
package dev.sluice.core;

import org.jspecify.annotations.NullMarked;
