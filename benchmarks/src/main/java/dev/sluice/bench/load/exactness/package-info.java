/**
 * How exact a contender was: admissions beyond its own rule's bound, counted per key during the
 * load run. {@link dev.sluice.bench.load.exactness.AdmissionTally} is the per-thread bookkeeping in
 * the measured loop (a counter per key per 1/16 window), {@link
 * dev.sluice.bench.load.exactness.AdmissionBound} the bound of each algorithm ({@link
 * dev.sluice.bench.load.exactness.SlidingWindowBound}, {@link
 * dev.sluice.bench.load.exactness.TokenBucketBound}) and {@link
 * dev.sluice.bench.load.exactness.Exactness} the verdict of a round. The count undercounts by
 * design, like limiter-core's {@code AdmissionBounds}, which its tests use as the oracle.
 */
@NullMarked
package dev.sluice.bench.load.exactness;

import org.jspecify.annotations.NullMarked;
