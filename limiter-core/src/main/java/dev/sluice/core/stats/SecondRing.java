package dev.sluice.core.stats;

/**
 * A few integer columns per second over the last {@value #SECONDS} seconds, in a ring indexed by
 * epoch second: {@code 4 × columns × 900} bytes whatever the traffic. Written once a second by the
 * tick, read by snapshots; both hold the owner's lock, never a decision.
 *
 * <p>A second that was never written (the tick was late, or nothing happened) reads as 0; so does
 * any second older than {@value #SECONDS} seconds before the last one written, or after it.
 */
final class SecondRing {
  static final int SECONDS = 900;

  private final int[][] columns;
  private long lastSecond = Long.MIN_VALUE;

  SecondRing(int columns) {
    this.columns = new int[columns][SECONDS];
  }

  /** Writes {@code values} (one per column) at {@code second}, clearing the seconds skipped. */
  void put(long second, int[] values) {
    if (lastSecond != Long.MIN_VALUE && second <= lastSecond) {
      return; // seconds are written in order; a repeated tick changes nothing
    }
    long from = lastSecond == Long.MIN_VALUE ? second : Math.max(lastSecond + 1, second - SECONDS);
    for (long s = from; s < second; s++) {
      for (int[] column : columns) {
        column[slot(s)] = 0;
      }
    }
    for (int c = 0; c < columns.length; c++) {
      columns[c][slot(second)] = values[c];
    }
    lastSecond = second;
  }

  /**
   * Column {@code column} for the {@code count} seconds up to and including {@code untilSecond}.
   */
  int[] read(int column, long untilSecond, int count) {
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      long second = untilSecond - count + 1 + i;
      if (second <= lastSecond && second > lastSecond - SECONDS) {
        out[i] = columns[column][slot(second)];
      }
    }
    return out;
  }

  /** Whether every second held is 0 (the ring can be dropped until something happens again). */
  boolean allZero() {
    for (int[] column : columns) {
      for (int value : column) {
        if (value != 0) {
          return false;
        }
      }
    }
    return true;
  }

  private static int slot(long second) {
    return (int) Math.floorMod(second, (long) SECONDS);
  }
}
