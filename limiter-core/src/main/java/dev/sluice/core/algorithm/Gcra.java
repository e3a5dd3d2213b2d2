package dev.sluice.core.algorithm;

import dev.sluice.core.Limit;

/**
 * Generic cell rate algorithm with redis-cell's {@code CL.THROTTLE} semantics (and throttled's,
 * which redis-cell ports).
 *
 * <h2>The rule</h2>
 *
 * A key stores one instant, its theoretical arrival time (TAT): when its admitted permits would be
 * spent had they arrived exactly on schedule, one per emission interval {@code T}.
 *
 * <pre>
 *   T = W / L          limit = burst + 1          tolerance = T × limit
 *   allow iff  max(TAT, now) + T·permits - tolerance ≤ now      then TAT' = max(TAT, now) + T·permits
 * </pre>
 *
 * and, as {@code CL.THROTTLE} reports them, with {@code ttl} the TAT after the call minus now:
 *
 * <pre>
 *   remaining  = floor((tolerance - ttl) / T), at least 0
 *   resetAfter = ttl                                        (until the TAT is in the past)
 *   retryAfter = max(TAT, now) + T·permits - tolerance - now   (denied only)
 * </pre>
 *
 * <h2>Worked example: {@code CL.THROTTLE user123 15 30 60 1}</h2>
 *
 * Burst 15, 30 per 60 s: {@code T = 2 s}, limit 16, tolerance 32 s.
 *
 * <pre>
 *   t=0s  #1   TAT 0 -> 2s     allowed  remaining floor((32-2)/2)  = 15   resetAfter 2s
 *   t=0s  #2   TAT 2 -> 4s     allowed  remaining 14                      resetAfter 4s
 *   ...
 *   t=0s  #16  TAT 30 -> 32s   allowed  remaining 0                       resetAfter 32s
 *   t=0s  #17  32 + 2 - 32 > 0  denied  remaining 0   retryAfter 2s      resetAfter 32s
 *   t=2s  #18  TAT 32 -> 34s   allowed  remaining 0                       resetAfter 32s
 *
 *   now ──┬──────────────────────── TAT (32 s ahead) = tolerance: full
 *         └─ every 2 s of waiting moves now one T closer: one more permit
 * </pre>
 *
 * <h2>Where Sluice differs from redis-cell, and why</h2>
 *
 * <ul>
 *   <li>{@code T} is exact ({@code nanos + fraction / L}, see {@link VirtualSchedule}) where
 *       redis-cell truncates it to whole nanoseconds and so admits slightly faster than asked.
 *   <li>Asking for more than {@code limit} permits is an error ({@code cost}), where redis-cell
 *       answers "denied, retry never".
 *   <li>Delays are exact nanoseconds rounded up; redis-cell rounds its replies up to whole seconds,
 *       which the API surfaces do too.
 *   <li>A peek (0 permits) stores nothing; redis-cell rewrites the TAT (to the same effect).
 * </ul>
 *
 * <h2>What it trades away</h2>
 *
 * Sixteen bytes per key and O(1) time, and an exact bound: in any interval of length {@code d} it
 * admits at most {@code limit + d / T} permits (burst plus the sustained rate), so at most {@code
 * burst + 1 + L} in a window, not {@code L}. It has no notion of windows: that is the point (no
 * boundary burst), and also why "remaining" is not "left in this window".
 *
 * <h2>State</h2>
 *
 * {@code [tatNanos, tatFraction]}: the TAT is {@code tatNanos + tatFraction / L} ns since the
 * epoch.
 */
public final class Gcra extends ScheduledAlgorithm {

  /** Capacity {@code burst + 1}: the tolerance holds that many emission intervals. */
  Gcra(Limit spec, boolean countDenied) {
    super(spec, countDenied, spec.capacity(), false);
  }
}
