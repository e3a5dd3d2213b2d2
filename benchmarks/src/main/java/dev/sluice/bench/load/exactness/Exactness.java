package dev.sluice.bench.load.exactness;

import java.util.List;
import java.util.function.IntFunction;

/**
 * How exact one contender was in one round: what it admitted, how much of that could be judged, and
 * how many admissions went beyond its rule's bound ({@link AdmissionBound}), summed over keys.
 *
 * @param admitted admissions in the round
 * @param judged admissions counted in a sub-window (the rest straddled an edge and are not judged,
 *     so {@code overAdmitted} can only be an undercount)
 * @param overAdmitted the fewest counted admissions that must go for every key to fit the bound
 * @param keysOver keys with at least one over-admission (summed rounds: the most in one round)
 * @param worstKey the key with the most, or {@code ""}
 * @param worstKeyOver its over-admissions
 */
public record Exactness(
    long admitted,
    long judged,
    long overAdmitted,
    int keysOver,
    String worstKey,
    long worstKeyOver) {

  /**
   * Merges the load threads' tallies of one round and judges every key against {@code bound}.
   * {@code keyName} names a key index for the report.
   */
  public static Exactness judge(
      List<AdmissionTally> tallies, AdmissionBound bound, IntFunction<String> keyName) {
    long admitted = 0;
    long straddled = 0;
    long firstSubWindow = Long.MAX_VALUE;
    for (AdmissionTally tally : tallies) {
      if (tally.subWindowNanos() != bound.subWindowNanos()) {
        throw new IllegalArgumentException("a tally's sub-window is not the bound's");
      }
      firstSubWindow = Math.min(firstSubWindow, tally.firstSubWindow());
    }
    // One table for the round, indexed from the earliest tally's first sub-window.
    AdmissionTally merged =
        new AdmissionTally(bound.subWindowNanos(), 0, firstSubWindow * bound.subWindowNanos());
    for (AdmissionTally tally : tallies) {
      admitted += tally.admitted();
      straddled += tally.straddled();
      long shift = tally.firstSubWindow() - firstSubWindow;
      tally.forEach((composite, count) -> merged.add(composite + shift, count));
    }
    long[] composites = merged.sortedComposites();
    long[] subWindows = new long[composites.length];
    int[] counts = new int[composites.length];
    for (int i = 0; i < composites.length; i++) {
      subWindows[i] =
          firstSubWindow + (composites[i] & ((1L << AdmissionTally.SUB_WINDOW_BITS) - 1));
      counts[i] = merged.countOf(composites[i]);
    }
    long over = 0;
    int keysOver = 0;
    int worst = -1;
    long worstOver = 0;
    int from = 0;
    while (from < composites.length) {
      int key = (int) (composites[from] >>> AdmissionTally.SUB_WINDOW_BITS);
      int to = from;
      while (to < composites.length
          && (int) (composites[to] >>> AdmissionTally.SUB_WINDOW_BITS) == key) {
        to++;
      }
      long keyOver = bound.overAdmitted(subWindows, counts, from, to);
      if (keyOver > 0) {
        over += keyOver;
        keysOver++;
        if (keyOver > worstOver) {
          worstOver = keyOver;
          worst = key;
        }
      }
      from = to;
    }
    return new Exactness(
        admitted,
        admitted - straddled,
        over,
        keysOver,
        worst < 0 ? "" : keyName.apply(worst),
        worstOver);
  }

  /** The share of admissions that were judged, 0..1. */
  public double judgedShare() {
    return admitted == 0 ? 1 : (double) judged / admitted;
  }

  /** Sums rounds: counts add up, the worst key is the worst round's. */
  public Exactness plus(Exactness other) {
    boolean otherWorse = other.worstKeyOver > worstKeyOver;
    return new Exactness(
        admitted + other.admitted,
        judged + other.judged,
        overAdmitted + other.overAdmitted,
        Math.max(keysOver, other.keysOver),
        otherWorse ? other.worstKey : worstKey,
        otherWorse ? other.worstKeyOver : worstKeyOver);
  }
}
