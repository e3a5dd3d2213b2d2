/**
 * The limiter algorithms, as pure functions of (state, now, permits).
 *
 * <p>Nothing here reads a clock, touches the network or imports Hazelcast (a test enforces it): the
 * same classes decide in {@code LocalRateLimiter}, inside a grid entry processor, and in the
 * accuracy simulator. Each class opens with the math it implements, a worked example and what it
 * trades away. Start with {@link dev.sluice.core.algorithm.LimiterAlgorithm}, then {@link
 * dev.sluice.core.algorithm.SlidingWindow} (the default). The three rate algorithms ({@link
 * dev.sluice.core.algorithm.Gcra}, {@link dev.sluice.core.algorithm.TokenBucket}, {@link
 * dev.sluice.core.algorithm.LeakyBucket}) share their exact arithmetic in {@code VirtualSchedule};
 * {@code NanoMath} holds the saturating and 128-bit helpers. {@code docs/algorithms.md} compares
 * them all.
 */
@NullMarked
package dev.sluice.core.algorithm;

import org.jspecify.annotations.NullMarked;
