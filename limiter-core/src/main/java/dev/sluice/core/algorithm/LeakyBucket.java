package dev.sluice.core.algorithm;

import dev.sluice.core.Limit;

/**
 * Leaky bucket as a queue: shaping, not policing. Requests join a queue that drains one permit
 * every {@code T = W / L}; an admitted request is told how long to wait ({@code delay}) before it
 * proceeds, so what comes out is evenly spaced. A request is denied when it would have to queue
 * behind more than {@code burst} permits. Shopify's and nginx {@code limit_req}'s model.
 *
 * <h2>The rule</h2>
 *
 * The state is the tail of the queue: the instant {@code tail} at which everything queued so far
 * has drained. A request for {@code p} permits starts when the queue ahead of it has drained and
 * occupies {@code p} intervals:
 *
 * <pre>
 *   start = max(tail, now)         delay = start - now          (the queue ahead: delay / T permits)
 *   allow iff  delay + (p - 1)·T ≤ burst · T                   then tail' = start + p·T
 * </pre>
 *
 * that is: the request's last permit waits behind at most {@code burst} others. For one permit it
 * is denied iff the queue (delay / T) would exceed burst (docs/algorithms.md, "leaky_bucket"). It
 * admits exactly when {@link Gcra} with the same burst does ({@code delay + p·T ≤ (burst + 1)·T});
 * GCRA is the meter form of this queue. What differs is the answer: here every admitted request
 * gets its place in the queue as {@code delay}, and GCRA admits it at once.
 *
 * <h2>Worked example: 2 per second (T = 500 ms), burst 3</h2>
 *
 * <pre>
 *   t=0ms    #1 allowed delay 0       proceeds at 0       tail 500
 *   t=0ms    #2 allowed delay 500ms   proceeds at 500     tail 1000
 *   t=0ms    #3 allowed delay 1000ms  proceeds at 1000    tail 1500
 *   t=0ms    #4 allowed delay 1500ms  proceeds at 1500    tail 2000   (3 ahead: the burst)
 *   t=0ms    #5 denied: 4 ahead > 3   retryAfter 500ms
 *   t=500ms  #6 allowed delay 1500ms  proceeds at 2000    tail 2500
 *
 *   out: 0    500   1000  1500  2000        evenly spaced, whatever came in
 * </pre>
 *
 * <h2>What {@code limit}, {@code remaining}, {@code delay} mean here</h2>
 *
 * {@code limit} and {@link #capacity()} are {@code burst + 1}: the request being served plus {@code
 * burst} waiting, so {@code burst = 0} is pure policing (one at a time, never a delay) and not
 * "admit nothing". {@code remaining} is how many more permits could join the queue right now;
 * {@code resetAfter} is when the queue is empty; {@code retryAfter} (denied) when this request
 * would fit. {@code delay} is rounded up to whole nanoseconds so that a caller never proceeds
 * before its slot; a peek reports the delay a request arriving now would get. The default burst is
 * {@code L}: one window's worth may wait, the last about {@code W}.
 *
 * <h2>What it trades away</h2>
 *
 * Sixteen bytes and O(1). Callers wait instead of being refused, which smooths load on what lies
 * behind the limiter, at the price of latency (up to {@code burst × T}) and of holding the caller
 * while it waits. The limiter only computes the delay; the waiting happens at the caller.
 *
 * <h2>State</h2>
 *
 * {@code [tailNanos, tailFraction]}: the queue drains at {@code tailNanos + tailFraction / L} ns
 * since the epoch.
 */
public final class LeakyBucket extends ScheduledAlgorithm {

  /** Capacity {@code burst + 1}: one request in service and {@code burst} waiting. */
  LeakyBucket(Limit spec, boolean countDenied) {
    super(spec, countDenied, spec.capacity(), true);
  }
}
