package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;

/**
 * Sliding window counter, Cloudflare's two-counter estimate. The default algorithm.
 *
 * <h2>The rule</h2>
 *
 * Count permits in epoch-aligned windows of length {@code W}. The rate over the trailing {@code W}
 * is estimated by assuming the previous window's permits were spread evenly across it, so the part
 * of the previous window still inside the trailing window weighs {@code (W - elapsed) / W}:
 *
 * <pre>
 *   estimate = floor(previous * (W - elapsed) / W) + current        elapsed = now - currentStart
 *   allow iff  estimate + permits ≤ limit
 * </pre>
 *
 * <h2>Worked example: 5 per 10 s</h2>
 *
 * <pre>
 *   window [0,10)                 window [10,20)
 *   |x  x  x x x     |            |  ^ t=12s
 *   0s ... five by 8s        10s     elapsed 2s, weight (10-2)/10 = 0.8
 *   estimate = floor(5 * 0.8) + 0 = 4;  4 + 1 ≤ 5: allowed
 * </pre>
 *
 * With 7 per minute, previous 5, current 3, at 30 % of the current window: {@code floor(5 * 0.7) +
 * 3 = 6}, and {@code 6 + 1 ≤ 7} is allowed; the next request sees 7 and is denied. At a window
 * boundary the previous window still weighs 1.0, so the fixed-window boundary burst (5 at 11:00:59,
 * 5 more at 11:01:00) cannot happen here.
 *
 * <h2>Exact delays</h2>
 *
 * {@code retryAfter} solves {@code estimate(now + d) + permits ≤ limit} for the smallest integer
 * {@code d}, exactly: {@code floor(c × (W - e) / W) ≤ a} holds iff {@code W - e ≤ ceil((a + 1) × W
 * / c) - 1}, computed with 128-bit products where 64 bits would overflow. First within the current
 * window (only the previous window's share shrinks), else in the next one (where the current count
 * becomes the shrinking share). The estimate never rises without traffic, so waiting {@code d}
 * succeeds and {@code d - 1} does not. {@code resetAfter} is the same for an estimate of 0.
 *
 * <h2>Penalty, and clocks that step back</h2>
 *
 * With {@code countDenied} a denial is added to the current count, and {@code retryAfter} is
 * computed on the penalised state, so waiting it out still succeeds. A clock that steps back into
 * an older window is held at the stored window instead of resetting the counts.
 *
 * <h2>What it trades away</h2>
 *
 * Three longs per key instead of a log: the price is that the estimate assumes an even spread.
 * Cloudflare measured 0.003 % of 400 M requests wrongly allowed or limited; {@code
 * docs/accuracy.md} measures ours against the exact {@link SlidingLog}. The floor makes the
 * estimate err toward admitting by less than one permit per window.
 *
 * <h2>State</h2>
 *
 * {@code [currentStart, current, previous]}: the start of the current window in epoch nanoseconds
 * and the permits counted in it and in the window before.
 */
public final class SlidingWindow implements LimiterAlgorithm {
  private static final int CURRENT_START = 0;
  private static final int CURRENT = 1;
  private static final int PREVIOUS = 2;
  private static final int STATE_SIZE = 3;

  private final long limit;
  private final long windowNanos;
  private final boolean countDenied;

  SlidingWindow(Limit spec, boolean countDenied) {
    this.limit = spec.limit();
    this.windowNanos = spec.windowNanos();
    this.countDenied = countDenied;
  }

  @Override
  public long[] newState() {
    return new long[STATE_SIZE];
  }

  /**
   * The state as is if it is a sliding-window state for this window length (its start is aligned to
   * it), else a fresh one.
   */
  @Override
  public long[] fit(long[] state) {
    boolean fits =
        state.length == STATE_SIZE
            && Math.floorMod(state[CURRENT_START], windowNanos) == 0
            && state[CURRENT] >= 0
            && state[PREVIOUS] >= 0;
    return fits ? state : newState();
  }

  /** The current window's start once it counts something: a booking may have moved it ahead. */
  @Override
  public long notBeforeNanos(long[] state) {
    return state[CURRENT] > 0 || state[PREVIOUS] > 0 ? state[CURRENT_START] : Long.MIN_VALUE;
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    // Roll into locals: the state is written only when something is counted, so a peek or a
    // denial leaves it bit for bit as it was. A clock that steps back (failover to a member whose
    // clock is behind) is held at the stored window rather than forgetting its counts: the
    // decision is taken at the window's start, and the delays include the wait until then.
    long currentStart = state[CURRENT_START];
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    long current = state[CURRENT];
    long previous = state[PREVIOUS];
    long behind = 0;
    if (windowStart < currentStart) {
      behind = currentStart - nowNanos;
      nowNanos = currentStart;
    } else if (windowStart != currentStart) {
      previous = windowStart - currentStart == windowNanos ? current : 0;
      current = 0;
      currentStart = windowStart;
    }
    long elapsed = nowNanos - currentStart;
    long estimate = estimate(previous, current, elapsed);
    // estimate <= limit - permits, not estimate + permits <= limit: a penalised count may be huge.
    boolean allowed = estimate <= limit - permits;
    if (permits > 0 && (allowed || countDenied)) {
      current = NanoMath.saturatedAdd(current, permits);
      state[CURRENT_START] = currentStart;
      state[CURRENT] = current;
      state[PREVIOUS] = previous;
      estimate = NanoMath.saturatedAdd(estimate, permits);
    }
    long remaining = Math.max(0, limit - estimate);
    long resetAfter = resetAfter(previous, current, elapsed);
    resetAfter = resetAfter > 0 ? resetAfter + behind : 0;
    if (allowed) {
      return Decision.allow(limit, remaining, resetAfter);
    }
    // Computed on the state as it is now, penalty included, so that waiting it out succeeds.
    long retryAfter = behind + retryAfter(previous, current, elapsed, permits);
    return Decision.deny(limit, remaining, retryAfter, resetAfter);
  }

  /**
   * Takes the permits off the current window's count (at most that count): permits of the previous
   * window are counted with everyone else's there and stay, the strict side.
   */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    // A clock behind the stored window decides in the stored window, so it is the current one.
    if (state[CURRENT_START] >= windowStart && permits > 0) {
      state[CURRENT] -= Math.min(permits, state[CURRENT]);
    }
    return apply(state, nowNanos, 0);
  }

  /** Takes the permits off the count of the window they were admitted in, if it still counts. */
  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, limit);
    if (permits > 0) {
      roll(state, nowNanos);
      long admittedIn = NanoMath.windowStart(admittedAtNanos, windowNanos);
      int slot =
          admittedIn == state[CURRENT_START]
              ? CURRENT
              : admittedIn == state[CURRENT_START] - windowNanos ? PREVIOUS : -1;
      if (slot >= 0) {
        state[slot] -= Math.min(permits, state[slot]);
      }
    }
    return apply(state, nowNanos, 0);
  }

  /** Moves the state into now's window (a window that ended becomes the previous one). */
  private void roll(long[] state, long nowNanos) {
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    if (windowStart > state[CURRENT_START]) {
      state[PREVIOUS] = windowStart - state[CURRENT_START] == windowNanos ? state[CURRENT] : 0;
      state[CURRENT] = 0;
      state[CURRENT_START] = windowStart;
    }
  }

  /** A lease ends with the window that counts it, so one may last that long. */
  @Override
  public long windowLeaseNanos() {
    return windowNanos;
  }

  /**
   * The current window counts the lease, which ends with the window: the estimate's previous share
   * only shrinks until then, so a request the holder answers later in the window is one the owner
   * would have admitted, and it counts in the same window.
   */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    apply(state, nowNanos, permits);
    long windowEnd = NanoMath.saturatedAdd(state[CURRENT_START], windowNanos);
    return Math.min(NanoMath.saturatedAdd(nowNanos, lifetimeNanos), windowEnd);
  }

  /**
   * On a key at its limit, permits free up only as the previous window's share shrinks: the {@code
   * j}-th next one fits once {@code floor(P × (W - e) / W) + C + j <= L}, so at the elapsed time
   * {@code e_j = firstElapsedWithShareAtMost(P, L - C - j)}. Consecutive instants are at most
   * {@code ceil(W / P)} apart (the ceiling in {@code e_j} grows by at most that per permit), so the
   * lease says {@code max(now, e_1) + (j - 1) × ceil(W / P)}, never earlier than {@code e_j}. The
   * grant adds its permits to {@code C} now: a request answered with the {@code j}-th at or after
   * its instant sees an estimate of at most {@code L} (only {@code j - 1} were used before it, and
   * the share only falls), and anyone else's request is decided on a count at least as high as the
   * owner alone would see. The lease ends with the window that counts it: {@code j <= L - C} keeps
   * every instant inside it. Nothing is paced where the previous window counted nothing (nothing
   * frees up before the window ends), or on a clock behind the stored window.
   */
  @Override
  public PacedLease paceLease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    long windowStart = NanoMath.windowStart(nowNanos, windowNanos);
    if (permits < 1 || windowStart < state[CURRENT_START]) {
      return PacedLease.NONE;
    }
    long previous = state[PREVIOUS];
    long current = state[CURRENT];
    if (windowStart != state[CURRENT_START]) {
      previous = windowStart - state[CURRENT_START] == windowNanos ? current : 0;
      current = 0;
    }
    long headroom = limit - current;
    if (previous == 0 || headroom < 1) {
      return PacedLease.NONE;
    }
    long spacing = NanoMath.ceilDiv(windowNanos, previous);
    long first =
        Math.max(nowNanos, windowStart + firstElapsedWithShareAtMost(previous, headroom - 1));
    long endsAt =
        Math.min(
            NanoMath.saturatedAdd(nowNanos, lifetimeNanos),
            NanoMath.saturatedAdd(windowStart, windowNanos));
    if (first >= endsAt) {
      return PacedLease.NONE;
    }
    long granted = Math.min(Math.min(permits, headroom), (endsAt - 1 - first) / spacing + 1);
    roll(state, nowNanos);
    state[CURRENT] += granted;
    return new PacedLease(granted, first, spacing, endsAt);
  }

  /** The previous count just before the current window; the current count at now. */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    long currentStart = state[CURRENT_START];
    long currentLast = NanoMath.saturatedAdd(currentStart, windowNanos - 1);
    return new Admissions.Builder()
        .add(Math.min(nowNanos, currentStart - 1), state[PREVIOUS])
        .add(Math.min(nowNanos, currentLast), state[CURRENT])
        .build();
  }

  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    long currentStart = NanoMath.windowStart(nowNanos, windowNanos);
    state[CURRENT_START] = currentStart;
    for (int i = 0; i < admissions.size(); i++) {
      long instant = admissions.instant(i);
      if (instant >= currentStart) {
        state[CURRENT] = NanoMath.saturatedAdd(state[CURRENT], admissions.permits(i));
      } else if (instant >= currentStart - windowNanos) {
        state[PREVIOUS] = NanoMath.saturatedAdd(state[PREVIOUS], admissions.permits(i));
      }
    }
    return state;
  }

  @Override
  public long capacity() {
    return limit;
  }

  /**
   * A count matters until the window after its own has ended: the current count until {@code
   * currentStart + 2W}, the previous one until {@code currentStart + W}.
   */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    long lastsWindows = state[CURRENT] > 0 ? 2 : state[PREVIOUS] > 0 ? 1 : 0;
    long freshAt =
        NanoMath.saturatedAdd(
            state[CURRENT_START], NanoMath.saturatedMultiply(windowNanos, lastsWindows));
    return Math.max(0, NanoMath.saturatedSubtract(freshAt, nowNanos));
  }

  private long estimate(long previous, long current, long elapsed) {
    return NanoMath.saturatedAdd(
        NanoMath.mulDivFloor(previous, windowNanos - elapsed, windowNanos), current);
  }

  /**
   * The earliest {@code d} with {@code estimate(now + d) + permits <= limit}, if nothing else
   * arrives. Within the current window only the previous window's share shrinks; if that is not
   * enough, the request waits into the next window, where the current count becomes the previous
   * one and shrinks in turn.
   */
  private long retryAfter(long previous, long current, long elapsed, long permits) {
    long headroom = limit - permits - current; // no overflow: current >= 0, limit - permits >= 0
    if (headroom >= 0) {
      long when = firstElapsedWithShareAtMost(previous, headroom);
      if (when < windowNanos) {
        return when - elapsed;
      }
    }
    long toNextWindow = windowNanos - elapsed;
    return toNextWindow + firstElapsedWithShareAtMost(current, limit - permits);
  }

  /** The delay until the estimate is 0: full capacity again. */
  private long resetAfter(long previous, long current, long elapsed) {
    if (current > 0) {
      return windowNanos - elapsed + firstElapsedWithShareAtMost(current, 0);
    }
    return Math.max(0, firstElapsedWithShareAtMost(previous, 0) - elapsed);
  }

  /**
   * The smallest elapsed time {@code e} (0 to W) in a window at which an older window's {@code
   * count} weighs at most {@code allowed}: {@code floor(count * (W - e) / W) <= allowed}, that is
   * {@code count * (W - e) < (allowed + 1) * W}, so {@code W - e <= ceil((allowed + 1) * W / count)
   * - 1}.
   */
  private long firstElapsedWithShareAtMost(long count, long allowed) {
    if (count <= allowed) {
      return 0;
    }
    long remainingMax = NanoMath.mulDivCeil(allowed + 1, windowNanos, count) - 1;
    return windowNanos - remainingMax;
  }
}
