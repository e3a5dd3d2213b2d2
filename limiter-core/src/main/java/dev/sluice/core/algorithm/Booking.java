package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;

/**
 * Wait instead of drop: a request that may wait up to {@code maxWait} is booked for the earliest
 * instant its permits fit, in the same atomic step, and answered "allowed after {@code delay}". The
 * caller waits the delay, then proceeds, with no second call. If the permits cannot be had within
 * {@code maxWait}, it is denied and nothing is booked.
 *
 * <h2>How</h2>
 *
 * <pre>
 *   a = max(now, notBefore(state))            the state may already be booked ahead
 *   repeat: decide at a ({@link LimiterAlgorithm#applyAt}, on a copy)
 *     admitted and a - now ≤ maxWait → keep the copy, answer allowed, delay = a - now (+ own delay)
 *     denied with retryAfter r        → a += r, while a - now ≤ maxWait (at most 16 steps)
 *   otherwise denied, nothing kept
 * </pre>
 *
 * {@code retryAfter} is the earliest wait after which the same request is admitted if nothing else
 * arrives, so one step nearly always suffices; several limits may need a few. What a booking at
 * {@code a} means per algorithm (docs/algorithms.md, "Waiting instead of dropping"):
 *
 * <ul>
 *   <li>gcra, token_bucket, leaky_bucket: debt beyond the tolerance, up to the wait: the schedule
 *       runs {@code a - now} further ahead, and every later request sees that debt.
 *   <li>fixed_window, sliding_window, sliding_buckets: the permits count in the window (bucket)
 *       where they fit; once a state has moved into a later window it no longer holds the real
 *       current window's count, so every request waits for that window ({@link
 *       LimiterAlgorithm#notBeforeNanos}): a plain check is denied until then.
 *   <li>sliding_log: timestamps at {@code a}; entries that leave before {@code a} are kept for the
 *       requests decided in between.
 *   <li>concurrency: permits in flight from {@code a}; requests wait for the latest booking.
 * </ul>
 *
 * <p>A booking at {@code a} counts as an admission at {@code a}, so the rule's bound holds for
 * bookings once their waits are served: proven by {@code BookingPropertiesTest}.
 *
 * <p>A plain request ({@code maxWait = 0}) on a state that is not booked ahead is exactly {@link
 * LimiterAlgorithm#apply}: the hot path does not change.
 */
public final class Booking {
  /** Decisions tried at most per booking (several limits may need more than one). */
  static final int MAX_STEPS = 16;

  private Booking() {}

  /**
   * Decides a request for {@code permits} at {@code nowNanos} that may wait up to {@code
   * maxWaitNanos} (0: not at all), updating {@code state} in place when it is admitted or booked.
   */
  public static Decision acquire(
      LimiterAlgorithm algorithm, long[] state, long nowNanos, long permits, long maxWaitNanos) {
    long start = Math.max(nowNanos, algorithm.notBeforeNanos(state));
    if (permits == 0 || (start == nowNanos && maxWaitNanos <= 0)) {
      return algorithm.apply(state, nowNanos, permits);
    }
    long at = start;
    long[] trial = state.clone();
    Decision decision = algorithm.applyAt(trial, nowNanos, at, permits);
    Decision atStart = decision;
    for (int step = 1; ; step++) {
      long wait = at - nowNanos;
      if (decision.allowed() && wait <= maxWaitNanos) {
        System.arraycopy(trial, 0, state, 0, state.length);
        return decision.afterWait(wait);
      }
      if (decision.allowed() || decision.retryAfterNanos() <= 0 || step >= MAX_STEPS) {
        break;
      }
      long next = NanoMath.saturatedAdd(at, decision.retryAfterNanos());
      if (next - nowNanos > maxWaitNanos) {
        break;
      }
      at = next;
      trial = state.clone();
      decision = algorithm.applyAt(trial, nowNanos, at, permits);
    }
    if (start == nowNanos) {
      // The plain denial, penalty and all where the policy counts denials.
      return algorithm.apply(state, nowNanos, permits);
    }
    // Booked ahead: nothing can be had before start.
    long behind = start - nowNanos;
    long retryAfter =
        NanoMath.saturatedAdd(behind, atStart.allowed() ? 0 : atStart.retryAfterNanos());
    return Decision.deny(
            atStart.limit(),
            0,
            retryAfter,
            NanoMath.saturatedAdd(behind, atStart.resetAfterNanos()))
        .withBindingLimit(
            atStart.bindingLimitIndex(),
            NanoMath.saturatedAdd(behind, atStart.bindingResetAfterNanos()));
  }
}
