package dev.sluice.core.decision;

import java.util.Arrays;
import java.util.function.LongUnaryOperator;

/**
 * The receipts given back on a key, kept beside its state in the same stored value so that a
 * release and the check that it was not spent before are one atomic step on the key's owner ({@link
 * KeyDecision}). Pure functions over a {@code long[]}; the array is never changed in place.
 *
 * <h2>Why a receipt frees at most once</h2>
 *
 * A receipt names its admission by the instant it was admitted and a number unique to it on the key
 * ({@link dev.sluice.core.Receipt}). Giving it back records that pair here; a receipt whose pair is
 * recorded frees nothing (a replay). A recorded pair is needed only until the window its permits
 * were admitted in has ended: after that no release frees anything for it anyway, spent or not. So
 * the set holds at most the receipts given back within the current window of the key's rule.
 *
 * <h2>Bounded memory: a floor, as IPsec's anti-replay window has</h2>
 *
 * At most {@value #MAX_ENTRIES} pairs are kept. When a pair goes (its window ended, or the set is
 * full and it is the oldest), the floor rises to its instant: every receipt admitted at or before
 * the floor counts as spent from then on. That never lets a replay through, and costs at most a
 * refund: a receipt admitted before the floor and never given back can no longer be. For the
 * receipts whose window ended that costs nothing (they are expired, and the floor keeps them so
 * even if the rule's window is made longer later); for a key that gives back more than {@value
 * #MAX_ENTRIES} receipts in one window, the oldest of its outstanding receipts become unusable, the
 * strict side. (RFC 4303's anti-replay window drops old sequence numbers the same way.)
 *
 * <h2>Layout</h2>
 *
 * <pre>
 *   []                                         nothing given back: no floor
 *   [floor, admittedAt_0, number_0, ..., admittedAt_(n-1), number_(n-1)]
 * </pre>
 */
public final class SpentReceipts {
  /** A key on which no receipt was given back. */
  public static final long[] EMPTY = new long[0];

  /** The most receipts one key remembers; the floor covers older ones. */
  public static final int MAX_ENTRIES = 256;

  private static final int FLOOR = 0;
  private static final int HEADER = 1;
  private static final int WIDTH = 2;

  private SpentReceipts() {}

  /** Whether {@code spent} is a well-formed set: empty, or a floor and up to the bound of pairs. */
  public static boolean wellFormed(long[] spent) {
    return spent.length == 0
        || ((spent.length - HEADER) % WIDTH == 0 && (spent.length - HEADER) / WIDTH <= MAX_ENTRIES);
  }

  /** The number of receipts remembered one by one. */
  public static int size(long[] spent) {
    return spent.length == 0 ? 0 : (spent.length - HEADER) / WIDTH;
  }

  /**
   * Whether the receipt of the admission at {@code admittedAtNanos} numbered {@code number} was
   * given back already, or counts as such (at or before the floor).
   */
  static boolean spent(long[] spent, long admittedAtNanos, long number) {
    if (spent.length == 0) {
      return false;
    }
    if (admittedAtNanos <= spent[FLOOR]) {
      return true;
    }
    for (int at = HEADER; at < spent.length; at += WIDTH) {
      if (spent[at] == admittedAtNanos && spent[at + 1] == number) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code spent} with the receipt ({@code admittedAtNanos}, {@code number}) recorded, after
   * dropping the receipts whose window ended by {@code nowNanos} and, when full, the oldest; each
   * dropped one raises the floor to its instant.
   *
   * @param windowEnd the instant the window of an admission at the given instant ends, for the
   *     key's policy ({@link CompiledPolicy#receiptWindowEndNanos})
   */
  static long[] spend(
      long[] spent, long admittedAtNanos, long number, long nowNanos, LongUnaryOperator windowEnd) {
    long floor = spent.length == 0 ? Long.MIN_VALUE : spent[FLOOR];
    long[] kept = new long[Math.min(size(spent), MAX_ENTRIES - 1) * WIDTH + WIDTH];
    int to = 0;
    // Live pairs, oldest dropped first when full: sort a copy of the pairs by instant.
    long[][] pairs = new long[size(spent)][];
    for (int i = 0; i < pairs.length; i++) {
      pairs[i] = new long[] {spent[HEADER + i * WIDTH], spent[HEADER + i * WIDTH + 1]};
    }
    Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
    int live = 0;
    for (long[] pair : pairs) {
      if (windowEnd.applyAsLong(pair[0]) <= nowNanos) {
        floor = Math.max(floor, pair[0]);
      } else {
        pairs[live++] = pair;
      }
    }
    int first = Math.max(0, live - (MAX_ENTRIES - 1));
    for (int i = 0; i < first; i++) {
      floor = Math.max(floor, pairs[i][0]);
    }
    for (int i = first; i < live; i++) {
      kept[to++] = pairs[i][0];
      kept[to++] = pairs[i][1];
    }
    kept[to++] = admittedAtNanos;
    kept[to++] = number;
    long[] written = new long[HEADER + to];
    written[FLOOR] = floor;
    System.arraycopy(kept, 0, written, HEADER, to);
    return written;
  }

  /**
   * How long from {@code nowNanos} the set must be kept: until the window of its latest receipt
   * ends (0 for none). A store that forgot it earlier would let a replay of one of them free again.
   */
  public static long untilForgettableNanos(
      long[] spent, long nowNanos, LongUnaryOperator windowEnd) {
    long latest = nowNanos;
    for (int at = HEADER; at < spent.length; at += WIDTH) {
      latest = Math.max(latest, windowEnd.applyAsLong(spent[at]));
    }
    return latest - nowNanos;
  }
}
