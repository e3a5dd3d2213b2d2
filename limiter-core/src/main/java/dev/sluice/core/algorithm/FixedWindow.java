package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;

/**
 * Fixed window counter: one counter per epoch-aligned window, the classic Redis {@code INCR} +
 * {@code EXPIRE}.
 *
 * <h2>The rule</h2>
 *
 * <pre>
 *   windowStart = now - now mod W                 (aligned to the Unix epoch on every member)
 *   allow iff  count(windowStart) + permits ≤ limit
 *   retryAfter = windowStart + W - now            (the count is 0 again in the next window)
 *   resetAfter = windowStart + W - now            (0 while the window's count is 0)
 * </pre>
 *
 * {@code retryAfter} is exact and tight: at {@code windowStart + W} the count is 0 and any allowed
 * cost fits; one nanosecond earlier it is still this window's count.
 *
 * <h2>Worked example: 5 per minute, the boundary burst</h2>
 *
 * <pre>
 *   window [11:00, 11:01)                 window [11:01, 11:02)
 *   ...................xxxxx|xxxxx.......................
 *                 11:00:59 ×5 allowed      11:01:00 ×5 allowed (count is 0 again)
 *   10 permits inside the two seconds 11:00:59-11:01:00: twice the limit.
 * </pre>
 *
 * A sixth request at 11:00:59 is denied with {@code retryAfter = 1 s}.
 *
 * <h2>What it trades away</h2>
 *
 * Two longs, O(1), and trivially explained to users ("5 per calendar minute"). The price is the
 * boundary burst above: {@code limit} at the end of one window plus {@code limit} at the start of
 * the next, up to {@code 2 × limit} in a trailing window. Within each aligned window it is exact.
 * {@link SlidingWindow} removes the burst for one more long.
 *
 * <h2>State</h2>
 *
 * {@code [windowStart, count]}: the start of the window the count belongs to (epoch nanoseconds)
 * and the permits counted in it.
 */
public final class FixedWindow implements LimiterAlgorithm {
  private static final int WINDOW_START = 0;
  private static final int COUNT = 1;
  private static final int STATE_SIZE = 2;

  private final long limit;
  private final long windowNanos;
  private final boolean countDenied;

  FixedWindow(Limit spec, boolean countDenied) {
    this.limit = spec.limit();
    this.windowNanos = spec.windowNanos();
    this.countDenied = countDenied;
  }

  @Override
  public long[] newState() {
    return new long[STATE_SIZE];
  }

  /**
   * The state as is if it is a fixed-window state for this window length (its start is aligned to
   * it), else a fresh one: a count taken over another window length, or another algorithm's state,
   * says nothing about this window.
   */
  @Override
  public long[] fit(long[] state) {
    boolean fits =
        state.length == STATE_SIZE
            && Math.floorMod(state[WINDOW_START], windowNanos) == 0
            && state[COUNT] >= 0;
    return fits ? state : newState();
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    long count = state[COUNT];
    if (windowStart < state[WINDOW_START]) {
      // The clock stepped back: keep counting in the stored window rather than forget it. The
      // delays below run from the real now to the stored window's end.
      windowStart = state[WINDOW_START];
    } else if (windowStart != state[WINDOW_START]) {
      count = 0;
    }
    boolean allowed = count <= limit - permits;
    if (permits > 0 && (allowed || countDenied)) {
      count = NanoMath.saturatedAdd(count, permits);
      state[WINDOW_START] = windowStart;
      state[COUNT] = count;
    }
    long toNextWindow = windowStart + windowNanos - nowNanos;
    long remaining = Math.max(0, limit - count);
    long resetAfter = count > 0 ? toNextWindow : 0;
    return allowed
        ? Decision.allow(limit, remaining, resetAfter)
        : Decision.deny(limit, remaining, toNextWindow, resetAfter);
  }

  /** Takes the permits off the current window's count, at most that count. */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    if (state[WINDOW_START] >= NanoMath.windowStart(nowNanos, windowNanos) && permits > 0) {
      state[COUNT] -= Math.min(permits, state[COUNT]);
    }
    return apply(state, nowNanos, 0);
  }

  /** Takes the permits off the count if they were admitted in the window it counts. */
  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, limit);
    long admittedIn = NanoMath.windowStart(admittedAtNanos, windowNanos);
    if (permits > 0 && admittedIn == state[WINDOW_START]) {
      state[COUNT] -= Math.min(permits, state[COUNT]);
    }
    return apply(state, nowNanos, 0);
  }

  /** A lease ends with the window that counts it, so one may last that long. */
  @Override
  public long windowLeaseNanos() {
    return windowNanos;
  }

  /** The current window counts the lease, which ends with the window. */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    apply(state, nowNanos, permits);
    long windowEnd = NanoMath.saturatedAdd(state[WINDOW_START], windowNanos);
    return Math.min(NanoMath.saturatedAdd(nowNanos, lifetimeNanos), windowEnd);
  }

  /** The count at the last instant of its window, or now if that is later. */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    long windowLast = NanoMath.saturatedAdd(state[WINDOW_START], windowNanos - 1);
    return new Admissions.Builder().add(Math.min(nowNanos, windowLast), state[COUNT]).build();
  }

  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    state[WINDOW_START] = windowStart;
    for (int i = 0; i < admissions.size(); i++) {
      if (admissions.instant(i) >= windowStart) {
        state[COUNT] = NanoMath.saturatedAdd(state[COUNT], admissions.permits(i));
      }
    }
    return state;
  }

  @Override
  public long capacity() {
    return limit;
  }

  /** The stored window's start once it counts something: a booking may have moved it ahead. */
  @Override
  public long notBeforeNanos(long[] state) {
    return state[COUNT] > 0 ? state[WINDOW_START] : Long.MIN_VALUE;
  }

  /** The count matters until its window ends. */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    if (state[COUNT] <= 0) {
      return 0;
    }
    long windowEnd = NanoMath.saturatedAdd(state[WINDOW_START], windowNanos);
    return Math.max(0, NanoMath.saturatedSubtract(windowEnd, nowNanos));
  }
}
