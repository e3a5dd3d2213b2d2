package dev.sluice.bench.load.exactness;

import java.util.Arrays;

/**
 * One load thread's admissions in one round, counted per key per sub-window: the bookkeeping behind
 * "over-admitted", cheap enough to run inside the measured loop.
 *
 * <p>Per admission it does two divisions and one probe of an open-addressing table of primitive
 * longs (no allocation once the table has grown), against a decision that costs tens of
 * microseconds; denials cost nothing. It is not thread-safe: each load thread owns one, and {@link
 * Exactness#judge} merges them after the round.
 *
 * <p>An admission is counted in sub-window {@code i} only when {@code sent - slack} and {@code
 * answered} both fall in it, so that the decision surely did. The slack covers a limiter whose
 * clock lags the harness's: Bucket4j reads a millisecond clock, which truncates, so its decision
 * may carry a time up to 1 ms before the request was sent.
 */
public final class AdmissionTally {
  /** Sub-windows a round may span: at 62.5 ms each, three days. */
  static final int SUB_WINDOW_BITS = 22;

  private static final long EMPTY = -1;

  private final long subWindowNanos;
  private final long slackNanos;
  private final long firstSubWindow;
  private long[] keys;
  private int[] counts;
  private int size;
  private long admitted;
  private long straddled;
  private long firstKeyAdmitted;

  /**
   * @param subWindowNanos the bound's sub-window ({@link AdmissionBound#subWindowNanos})
   * @param slackNanos how far before {@code sent} a decision's own clock may read
   * @param roundStartEpochNanos when the round starts, in epoch nanoseconds
   */
  public AdmissionTally(long subWindowNanos, long slackNanos, long roundStartEpochNanos) {
    if (subWindowNanos < 1 || slackNanos < 0) {
      throw new IllegalArgumentException("subWindowNanos must be positive, slack not negative");
    }
    this.subWindowNanos = subWindowNanos;
    this.slackNanos = slackNanos;
    this.firstSubWindow = Math.floorDiv(roundStartEpochNanos - slackNanos, subWindowNanos);
    this.keys = new long[1 << 10];
    this.counts = new int[keys.length];
    Arrays.fill(keys, EMPTY);
  }

  /** One admission of the key with index {@code key}, sent and answered at these epoch instants. */
  public void record(int key, long sentEpochNanos, long answeredEpochNanos) {
    admitted++;
    if (key == 0) {
      firstKeyAdmitted++;
    }
    long sub = Math.floorDiv(sentEpochNanos - slackNanos, subWindowNanos);
    long relative = sub - firstSubWindow;
    if (sub != Math.floorDiv(answeredEpochNanos, subWindowNanos)
        || relative < 0
        || relative >= 1L << SUB_WINDOW_BITS
        || key < 0) {
      straddled++;
      return;
    }
    add(((long) key << SUB_WINDOW_BITS) | relative, 1);
  }

  /** Adds {@code count} to the (key, sub-window) {@code composite}. */
  void add(long composite, int count) {
    int mask = keys.length - 1;
    int slot = (int) mix(composite) & mask;
    while (true) {
      long at = keys[slot];
      if (at == composite) {
        counts[slot] += count;
        return;
      }
      if (at == EMPTY) {
        keys[slot] = composite;
        counts[slot] = count;
        if (++size * 2 > keys.length) {
          grow();
        }
        return;
      }
      slot = (slot + 1) & mask;
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldCounts = counts;
    keys = new long[oldKeys.length * 2];
    counts = new int[keys.length];
    Arrays.fill(keys, EMPTY);
    int mask = keys.length - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != EMPTY) {
        int slot = (int) mix(oldKeys[i]) & mask;
        while (keys[slot] != EMPTY) {
          slot = (slot + 1) & mask;
        }
        keys[slot] = oldKeys[i];
        counts[slot] = oldCounts[i];
      }
    }
  }

  private static long mix(long x) {
    long h = x * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 32);
  }

  /** Admissions recorded, counted or not. */
  public long admitted() {
    return admitted;
  }

  /**
   * Admissions of the key with index 0 (a Zipf workload's hottest key), judged or not: how much of
   * its limit a key far past it was given.
   */
  public long firstKeyAdmitted() {
    return firstKeyAdmitted;
  }

  /** Admissions not counted: they straddle a sub-window edge (or fall outside the round). */
  public long straddled() {
    return straddled;
  }

  long subWindowNanos() {
    return subWindowNanos;
  }

  long firstSubWindow() {
    return firstSubWindow;
  }

  /** The count of the (key, sub-window) {@code composite}, 0 if none. */
  int countOf(long composite) {
    int mask = keys.length - 1;
    int slot = (int) mix(composite) & mask;
    while (keys[slot] != EMPTY) {
      if (keys[slot] == composite) {
        return counts[slot];
      }
      slot = (slot + 1) & mask;
    }
    return 0;
  }

  /** Every (key, sub-window) counted, ascending: by key, then by sub-window. */
  long[] sortedComposites() {
    long[] out = new long[size];
    int n = 0;
    for (long key : keys) {
      if (key != EMPTY) {
        out[n++] = key;
      }
    }
    Arrays.sort(out);
    return out;
  }

  /** Calls {@code sink} once per (key, sub-window) with its count. */
  void forEach(CountSink sink) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != EMPTY) {
        sink.accept(keys[i], counts[i]);
      }
    }
  }

  @FunctionalInterface
  interface CountSink {
    void accept(long composite, int count);
  }
}
