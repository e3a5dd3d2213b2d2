package dev.sluice.bench.load.exactness;

import java.time.Instant;

/**
 * Epoch nanoseconds from {@link System#nanoTime}, so that the load loop, which reads {@code
 * nanoTime} around every call anyway, can place a decision on the clock the limiters decide with
 * (Sluice's members read {@code Instant.now()}, Redis {@code TIME}, Bucket4j {@code
 * currentTimeMillis}; one machine, one wall clock) without a second clock read per call.
 *
 * <p>The offset is taken once per round from the reading of {@link Instant#now} that the shortest
 * pair of {@code nanoTime} readings brackets, so it is off by a few microseconds at most; over a
 * round of seconds the two clocks do not drift apart measurably. {@link AdmissionTally}'s slack of
 * a millisecond covers both.
 */
public final class EpochClock {
  private final long offsetNanos;

  private EpochClock(long offsetNanos) {
    this.offsetNanos = offsetNanos;
  }

  /** Measures the offset now. */
  public static EpochClock calibrate() {
    long bestGap = Long.MAX_VALUE;
    long bestOffset = 0;
    for (int i = 0; i < 20; i++) {
      long before = System.nanoTime();
      Instant now = Instant.now();
      long after = System.nanoTime();
      if (after - before < bestGap) {
        bestGap = after - before;
        long epoch = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        bestOffset = epoch - (before + (after - before) / 2);
      }
    }
    return new EpochClock(bestOffset);
  }

  /** A clock with a given offset, for tests. */
  public static EpochClock withOffset(long offsetNanos) {
    return new EpochClock(offsetNanos);
  }

  /** The epoch instant of a {@code System.nanoTime()} reading. */
  public long epochNanos(long nanoTime) {
    return nanoTime + offsetNanos;
  }
}
