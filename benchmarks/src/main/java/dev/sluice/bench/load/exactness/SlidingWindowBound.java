package dev.sluice.bench.load.exactness;

import java.util.Locale;

/**
 * The bound of the sliding-window counter (Sluice's {@code sliding_window} and the Redis Lua
 * script, which computes the same estimate): at every moment of window {@code k},
 *
 * <pre>
 *   floor(previous × (W - elapsed) / W) + current ≤ L
 * </pre>
 *
 * where {@code previous} counts window {@code k-1} and {@code current} window {@code k} up to that
 * moment, windows aligned to the epoch.
 *
 * <h2>How it is checked from counts</h2>
 *
 * At each cut {@code c = start + j·W/16} ({@code j = 1..16}) of window {@code k}: the admissions
 * counted in the sub-windows before the cut, plus {@code floor(P × (16 - j) / 16)} with {@code P}
 * those counted in window {@code k-1}, must be at most {@code L}. Every admission before the cut
 * saw a weight of at least {@code (16 - j) / 16} on a previous count of at least {@code P}, and the
 * last of them at least the others as current, so a correct limiter passes; undercounting either
 * count only loosens the check. This is {@code AdmissionBounds}' sliding-window check on sub-window
 * counts.
 *
 * <h2>How many were too many</h2>
 *
 * In window {@code k} the excess {@code e_k} is the largest amount by which a cut exceeds {@code
 * L}. Windows are taken in order, and window {@code k+1} sees {@code P = N_k - e_k}: the count
 * window {@code k} would have had if its excess had been denied. Over-admitted is {@code Σ e_k}.
 * Any set of removals that makes every cut fit removes at least {@code e_k} from window {@code k},
 * less whatever extra it removed from window {@code k-1} (which lowers {@code floor(P × ...)} by at
 * most as much), so by induction it removes at least {@code Σ e_k}: the figure never exceeds the
 * fewest admissions that had to go.
 */
public final class SlidingWindowBound implements AdmissionBound {
  private final long limit;
  private final long windowNanos;

  public SlidingWindowBound(long limit, long windowNanos) {
    if (limit < 1 || windowNanos < SUB_WINDOWS || windowNanos % SUB_WINDOWS != 0) {
      throw new IllegalArgumentException(
          "limit " + limit + " per " + windowNanos + " ns has no sliding-window bound here");
    }
    this.limit = limit;
    this.windowNanos = windowNanos;
  }

  @Override
  public long subWindowNanos() {
    return windowNanos / SUB_WINDOWS;
  }

  @Override
  public long overAdmitted(long[] subWindows, int[] counts, int from, int to) {
    long total = 0;
    long previousWindow = Long.MIN_VALUE;
    long previousKept = 0;
    int i = from;
    while (i < to) {
      long window = Math.floorDiv(subWindows[i], SUB_WINDOWS);
      long previous = window - 1 == previousWindow ? previousKept : 0;
      long current = 0;
      long excess = 0;
      for (int j = 0; j < SUB_WINDOWS; j++) {
        // Add sub-window j, then judge the cut at its end: elapsed = (j + 1) / 16 of the window.
        while (i < to && subWindows[i] == window * SUB_WINDOWS + j) {
          current += counts[i];
          i++;
        }
        long share = previous * (SUB_WINDOWS - 1 - j) / SUB_WINDOWS;
        excess = Math.max(excess, current + share - limit);
      }
      total += excess;
      previousKept = current - excess;
      previousWindow = window;
    }
    return total;
  }

  @Override
  public String describe() {
    return String.format(
        Locale.ROOT,
        "sliding-window estimate ≤ %d per %d ms at every 1/16 of each window",
        limit,
        windowNanos / 1_000_000);
  }
}
