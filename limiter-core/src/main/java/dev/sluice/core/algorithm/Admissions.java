package dev.sluice.core.algorithm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * What a state still counts, as permits at instants: the common language in which one algorithm's
 * state is carried over into another's when a rule changes its window, algorithm or buckets.
 *
 * <h2>Conservative by construction</h2>
 *
 * A state does not remember exactly when its permits were admitted (a sliding window keeps two
 * counts, a token bucket one instant). {@link LimiterAlgorithm#admissions} therefore places each
 * permit at the <em>latest</em> instant it can have been admitted, never after {@code now}. For
 * every algorithm, a permit admitted later weighs at least as much on future decisions (it stays in
 * a window, a log or a bucket longer, or pushes a theoretical arrival time further), so a state
 * rebuilt from these admissions ({@link LimiterAlgorithm#fromAdmissions}) is never more permissive
 * than one rebuilt from the true history the old state summarised.
 *
 * <pre>
 *   sliding_window [start 60s, current 3, previous 5] at now = 75 s, W = 60 s
 *     previous: 5 permits at 59.999... s (the end of the window before)
 *     current:  3 permits at 75 s (now)
 * </pre>
 *
 * <h2>Several limits</h2>
 *
 * The limits of one policy count the same requests, so their admissions are not added up: {@link
 * #envelope} takes, for every instant {@code x}, the largest number of permits any of them says was
 * admitted after {@code x}. That is again the most any one of them can tell, and no more.
 *
 * <p>Immutable; instants ascending, permits positive.
 */
public final class Admissions {
  static final Admissions NONE = new Admissions(new long[0], new long[0]);

  private final long[] instants;
  private final long[] permits;

  private Admissions(long[] instants, long[] permits) {
    this.instants = instants;
    this.permits = permits;
  }

  /** The number of distinct instants. */
  public int size() {
    return instants.length;
  }

  /** The {@code i}-th instant, ascending, in epoch nanoseconds. */
  public long instant(int i) {
    return instants[i];
  }

  /** The permits admitted at the {@code i}-th instant. */
  public long permits(int i) {
    return permits[i];
  }

  /** All permits, saturating. */
  public long total() {
    long total = 0;
    for (long p : permits) {
      total = NanoMath.saturatedAdd(total, p);
    }
    return total;
  }

  /**
   * For every instant {@code x}, the most permits any of {@code parts} counts after {@code x}: the
   * admissions of several limits over the same requests, without counting a request twice.
   */
  public static Admissions envelope(List<Admissions> parts) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    TreeSet<Long> all = new TreeSet<>();
    for (Admissions part : parts) {
      for (long instant : part.instants) {
        all.add(instant);
      }
    }
    // Walk from the newest instant back: E(t) = max over parts of the permits at or after t.
    Long[] descending = all.descendingSet().toArray(new Long[0]);
    long[] suffix = new long[parts.size()];
    int[] next = new int[parts.size()];
    for (int p = 0; p < parts.size(); p++) {
      next[p] = parts.get(p).instants.length - 1;
    }
    long previousEnvelope = 0;
    long[] outInstants = new long[descending.length];
    long[] outPermits = new long[descending.length];
    int n = 0;
    for (Long instant : descending) {
      long envelope = 0;
      for (int p = 0; p < parts.size(); p++) {
        Admissions part = parts.get(p);
        while (next[p] >= 0 && part.instants[next[p]] >= instant) {
          suffix[p] = NanoMath.saturatedAdd(suffix[p], part.permits[next[p]]);
          next[p]--;
        }
        envelope = Math.max(envelope, suffix[p]);
      }
      if (envelope > previousEnvelope) {
        outInstants[n] = instant;
        outPermits[n] = envelope - previousEnvelope;
        n++;
        previousEnvelope = envelope;
      }
    }
    // Collected newest first: reverse into ascending order.
    long[] instants = new long[n];
    long[] permits = new long[n];
    for (int i = 0; i < n; i++) {
      instants[i] = outInstants[n - 1 - i];
      permits[i] = outPermits[n - 1 - i];
    }
    return new Admissions(instants, permits);
  }

  /** Collects admissions in any order; equal instants are merged, zero permits dropped. */
  static final class Builder {
    private final List<long[]> entries = new ArrayList<>();

    /** Adds {@code count} permits at {@code instant}; nothing for {@code count <= 0}. */
    Builder add(long instant, long count) {
      if (count > 0) {
        entries.add(new long[] {instant, count});
      }
      return this;
    }

    Admissions build() {
      if (entries.isEmpty()) {
        return NONE;
      }
      entries.sort((a, b) -> Long.compare(a[0], b[0]));
      long[] instants = new long[entries.size()];
      long[] permits = new long[entries.size()];
      int n = 0;
      for (long[] entry : entries) {
        if (n > 0 && instants[n - 1] == entry[0]) {
          permits[n - 1] = NanoMath.saturatedAdd(permits[n - 1], entry[1]);
        } else {
          instants[n] = entry[0];
          permits[n] = entry[1];
          n++;
        }
      }
      return new Admissions(Arrays.copyOf(instants, n), Arrays.copyOf(permits, n));
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Admissions other
        && Arrays.equals(instants, other.instants)
        && Arrays.equals(permits, other.permits);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(instants) + Arrays.hashCode(permits);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("Admissions[");
    for (int i = 0; i < instants.length; i++) {
      text.append(i == 0 ? "" : ", ").append(permits[i]).append('@').append(instants[i]);
    }
    return text.append(']').toString();
  }
}
