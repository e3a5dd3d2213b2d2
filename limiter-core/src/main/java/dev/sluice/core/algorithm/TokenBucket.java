package dev.sluice.core.algorithm;

import dev.sluice.core.Limit;

/**
 * Token bucket: a bucket of {@code burst} tokens, refilled continuously at {@code L} per {@code W};
 * a request takes {@code permits} tokens or is denied. Stripe's, Amazon's and Bucket4j's limiter.
 *
 * <h2>The rule</h2>
 *
 * <pre>
 *   tokens(now) = min(burst, tokens(last) + (now - last) · L / W)
 *   allow iff  tokens(now) >= permits                  then tokens -= permits
 *   remaining  = floor(tokens after the call)
 *   retryAfter = (permits - tokens) · W / L            (until enough have refilled)
 *   resetAfter = (burst - tokens) · W / L              (until the bucket is full)
 * </pre>
 *
 * A new key starts full. {@code burst} defaults to {@code L}: one window's worth at once, then the
 * sustained rate.
 *
 * <h2>Worked example: 10 per second, burst 5</h2>
 *
 * <pre>
 *   tokens 5 ─┐                 refill 1 token per 100 ms, up to 5
 *   t=0ms     │ ×5 allowed      tokens 5 -> 0
 *   t=0ms     │ 6th denied      retryAfter 100 ms, resetAfter 500 ms
 *   t=100ms   │ allowed         tokens 1 -> 0
 *   t=350ms   │ allowed         tokens 2.5 -> 1.5, remaining 1
 *   t=850ms   └ peek            tokens 5 (full, capped): remaining 5
 * </pre>
 *
 * <h2>How the tokens are kept exactly</h2>
 *
 * Storing {@code tokens} and {@code last} needs fractional tokens: at 7 per second a token is
 * 142,857,142.857 ns of refill, and integer tokens scaled by {@code W} would overflow 64 bits (a
 * burst of 1e9 times a 30-day window). So the state is the equivalent instant at which the bucket
 * will be full again, {@code fullAt = now + (burst - tokens) · T} with {@code T = W / L}, kept
 * exactly as {@code nanos + fraction / L} (see {@link VirtualSchedule}): {@code tokens = burst -
 * (fullAt - now) / T}. Taking {@code p} tokens moves {@code fullAt} by {@code p·T}; refilling is
 * time passing. This is the virtual-scheduling form of GCRA with {@code burst} slots, so token
 * bucket and {@link Gcra} admit identically when {@code tokenBurst = gcraBurst + 1}. Rates up to
 * one permit per nanosecond never round to zero, and {@code n} requests for 1 leave exactly the
 * state of one request for {@code n}.
 *
 * <h2>What it trades away</h2>
 *
 * Sixteen bytes and O(1) per decision. In any interval of length {@code d} it admits at most {@code
 * burst + d·L/W} permits, so a full window can see {@code burst + L}: the burst is the point, so
 * choose it deliberately. It cannot tell "limit per window" apart from "rate with slack".
 *
 * <h2>State</h2>
 *
 * {@code [fullAtNanos, fullAtFraction]}: the bucket is full from {@code fullAtNanos +
 * fullAtFraction / L} ns since the epoch.
 */
public final class TokenBucket extends ScheduledAlgorithm {

  /** Capacity {@code burst}: the bucket's size. */
  TokenBucket(Limit spec, boolean countDenied) {
    super(spec, countDenied, spec.capacity(), false);
  }
}
