/**
 * The limiter in one JVM: {@link dev.sluice.core.local.LocalRateLimiter}, for single-process
 * services and as the reference runtime of the contract suite.
 */
@NullMarked
package dev.sluice.core.local;

import org.jspecify.annotations.NullMarked;
