package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys denied most often, with bounds that hold for every key, listed or not: what a {@link
 * SpaceSaving} sketch says, and what several of them say together once {@linkplain #merge merged}.
 *
 * <h2>What it guarantees</h2>
 *
 * Let {@code f(x)} be the true number of denials of key {@code x} in the stream(s) summarized and
 * {@code N = total} their sum over all keys. Then:
 *
 * <ul>
 *   <li>a listed key's {@code count} is never below {@code f(x)} and {@code count - error} never
 *       above it;
 *   <li>a key not listed has {@code f(x) <= unlistedAtMost};
 *   <li>{@code unlistedAtMost} and every {@code error} are at most {@code N / k} for a summary of
 *       one sketch of {@code k} counters (and of a merge that did not {@link #top truncate}); so
 *       every key denied more than {@code N / k} times is listed.
 * </ul>
 *
 * <h2>Merging (sketches of several members, or of several time windows)</h2>
 *
 * A sketch's estimate for a key it does not hold is its minimum counter {@code m_i} (no such key
 * can have been seen more often, see {@link SpaceSaving}). The merge estimates each key of the
 * union as the sum, over the summaries, of its count where listed and {@code m_i} where not:
 *
 * <pre>
 *   count(x) = Σ_i (c_i(x) if listed in i, else m_i)       error(x) = Σ_i (e_i(x) if listed, else m_i)
 *   unlistedAtMost = Σ_i m_i                               total = Σ_i N_i
 * </pre>
 *
 * Each term bounds {@code f_i(x)} from above with slack at most {@code m_i}, so the sums keep both
 * guarantees with {@code Σ m_i <= Σ N_i / k = N / k}: the merge keeps Space-Saving's error bound
 * for the combined stream. It keeps every key of the union (at most members × windows × k), because
 * cutting the merged list back to {@code k} would double the bound (the cut-off count can reach
 * {@code 2N / k}); {@link #top} cuts only for display and raises {@code unlistedAtMost} to the
 * largest count it dropped, which keeps the second guarantee exact.
 *
 * <p>Worked example, k = 2. Member A saw {@code a a a b c}: its sketch holds a = 3 (error 0) and c
 * = 2 (error 1: c took b's counter), minimum m = 2. Member B saw {@code a d d}: a = 1, d = 2, m =
 * 1. Merged: a = 3 + 1 = 4 error 0 (true 4); c = 2 + 1 = 3 error 2 (true 1); d = 2 + 2 = 4 error 2
 * (true 2); unlistedAtMost = 2 + 1 = 3 (b: true 1). N = 8 and N / k = 4 bound every error.
 *
 * @param keys the keys, largest {@code count} first
 * @param unlistedAtMost no key missing from {@code keys} was denied more often than this
 * @param total the denials summarized, over all keys
 */
public record KeySummary(List<KeyCount> keys, long unlistedAtMost, long total) {

  public static final KeySummary EMPTY = new KeySummary(List.of(), 0, 0);

  private static final Comparator<KeyCount> LARGEST_FIRST =
      Comparator.comparingLong(KeyCount::count)
          .reversed()
          .thenComparingLong(KeyCount::error)
          .thenComparing(KeyCount::key);

  public KeySummary {
    keys = List.copyOf(keys);
  }

  /** The summaries of several sketches as one (see the class comment for why the bounds hold). */
  public static KeySummary merge(List<KeySummary> summaries) {
    if (summaries.size() == 1) {
      return summaries.get(0);
    }
    Map<String, long[]> union = new HashMap<>();
    long absentSum = 0;
    long total = 0;
    for (KeySummary summary : summaries) {
      absentSum += summary.unlistedAtMost();
      total += summary.total();
    }
    for (int i = 0; i < summaries.size(); i++) {
      for (KeyCount key : summaries.get(i).keys()) {
        // Start every key at the sum of the absent bounds; each summary that lists it swaps its
        // own bound for its count and error.
        long[] counts = union.computeIfAbsent(key.key(), k -> new long[2]);
        counts[0] += key.count() - summaries.get(i).unlistedAtMost();
        counts[1] += key.error() - summaries.get(i).unlistedAtMost();
      }
    }
    List<KeyCount> merged = new ArrayList<>(union.size());
    for (Map.Entry<String, long[]> e : union.entrySet()) {
      merged.add(
          new KeyCount(e.getKey(), e.getValue()[0] + absentSum, e.getValue()[1] + absentSum));
    }
    merged.sort(LARGEST_FIRST);
    return new KeySummary(merged, absentSum, total);
  }

  /**
   * The {@code n} keys with the largest counts; a key dropped here counts in {@code
   * unlistedAtMost}, so the bounds still hold.
   */
  public KeySummary top(int n) {
    if (keys.size() <= n) {
      return this;
    }
    long dropped = keys.get(n).count(); // sorted: the largest of the dropped
    return new KeySummary(keys.subList(0, n), Math.max(unlistedAtMost, dropped), total);
  }

  /** The keys sorted, largest count first (for a sketch's raw counters). */
  static List<KeyCount> sorted(List<KeyCount> keys) {
    List<KeyCount> copy = new ArrayList<>(keys);
    copy.sort(LARGEST_FIRST);
    return copy;
  }
}
