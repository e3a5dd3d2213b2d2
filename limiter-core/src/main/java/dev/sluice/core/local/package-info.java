/**
 * The limiter in one JVM: {@link dev.sluice.core.local.LocalRateLimiter}, for single-process
 * services and as the reference runtime of the contract suite.
 *
 * <p>Start with {@link dev.sluice.core.local.LocalRateLimiter}; {@link
 * dev.sluice.core.local.LocalBackend} is its storage (a map of key states, decided under a lock per
 * key).
 */
@NullMarked
package dev.sluice.core.local;

import org.jspecify.annotations.NullMarked;
