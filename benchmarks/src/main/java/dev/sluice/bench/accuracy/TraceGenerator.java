package dev.sluice.bench.accuracy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded generators of request traces, each aimed at a way an approximate limiter can go wrong.
 *
 * <p>All traces start at an epoch-aligned instant so that windows fall where the algorithms put
 * them, and rates are given relative to the threshold {@code limit / window}: a source at 1.0 sends
 * exactly at the limit on average. Sources near 1.0 are where approximations disagree with the
 * exact log; far below or far above, every algorithm agrees.
 */
public final class TraceGenerator {
  /** Where every trace starts: an instant aligned to every window used here. */
  public static final long START_NANOS =
      Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;

  private final long limit;
  private final long windowNanos;
  private final long durationNanos;

  /**
   * @param limit permits per window at the threshold
   * @param window the window length
   * @param duration how long each trace lasts
   */
  public TraceGenerator(long limit, Duration window, Duration duration) {
    this.limit = limit;
    this.windowNanos = window.toNanos();
    this.durationNanos = duration.toNanos();
  }

  /** Requests per nanosecond at {@code factor} times the threshold. */
  private double rate(double factor) {
    return factor * limit / windowNanos;
  }

  /**
   * Every source a Poisson process at a steady rate, drawn uniformly from 0.5 to 1.5 times the
   * threshold: half the sources hover just under the limit, half just over.
   */
  public Trace steadyPoisson(long seed, int sources) {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> times = new ArrayList<>(sources);
    for (int s = 0; s < sources; s++) {
      times.add(poisson(random, rate(0.5 + random.nextDouble()), START_NANOS, durationNanos));
    }
    return trace(
        "steady-poisson", "Poisson sources at 0.5x to 1.5x the limit, uniformly", seed, times);
  }

  /**
   * Sources alternate between bursts at 3x the threshold (mean length a third of a window) and
   * silences (mean two windows), both exponentially distributed: the traffic of a batch job or a
   * retry storm.
   */
  public Trace burstyOnOff(long seed, int sources) {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> times = new ArrayList<>(sources);
    double meanOnNanos = windowNanos / 3.0;
    double meanOffNanos = windowNanos * 2.0;
    for (int s = 0; s < sources; s++) {
      LongList source = new LongList();
      long t = START_NANOS + (long) (random.nextDouble() * meanOffNanos);
      long end = START_NANOS + durationNanos;
      while (t < end) {
        long onEnd = Math.min(end, t + (long) exponential(random, meanOnNanos));
        source.addAll(poisson(random, rate(3.0), t, onEnd - t));
        t = onEnd + (long) exponential(random, meanOffNanos);
      }
      times.add(source.toArray());
    }
    return trace(
        "bursty-on-off",
        "bursts at 3x the limit (mean W/3) between silences (mean 2W)",
        seed,
        times);
  }

  /**
   * The attack on fixed windows: {@code limit} requests in the last 5 % of a window and {@code
   * limit} more in the first 5 % of the next, then quiet for a window, repeated. Every source is
   * over the threshold (2x in the trailing window around each boundary).
   */
  public Trace boundaryAttack(long seed, int sources) {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> times = new ArrayList<>(sources);
    long edgeNanos = windowNanos / 20;
    for (int s = 0; s < sources; s++) {
      LongList source = new LongList();
      long phase = random.nextInt(3); // attackers do not all pick the same boundaries
      for (long boundary = START_NANOS + (1 + phase) * windowNanos;
          boundary < START_NANOS + durationNanos;
          boundary += 3 * windowNanos) {
        source.addAll(uniform(random, limit, boundary - edgeNanos, edgeNanos));
        source.addAll(uniform(random, limit, boundary, edgeNanos));
      }
      times.add(source.toArray());
    }
    return trace(
        "boundary-attack",
        "L requests in the last 5% of a window and L in the first 5% of the next",
        seed,
        times);
  }

  /**
   * Many keys with heavy-tailed rates: log-normal around a median of 0.3x the threshold (sigma 1),
   * so most keys are quiet and a long tail is well over the limit.
   */
  public Trace manyKeys(long seed, int sources) {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> times = new ArrayList<>(sources);
    for (int s = 0; s < sources; s++) {
      double factor = 0.3 * Math.exp(gaussian(random));
      times.add(poisson(random, rate(factor), START_NANOS, durationNanos));
    }
    return trace("many-keys", "log-normal rates, median 0.3x the limit, sigma 1", seed, times);
  }

  /**
   * Like the traffic Cloudflare measured: 99 % of sources far under the threshold (0.01x to 0.3x)
   * and 1 % attackers at 1.5x to 10x.
   */
  public Trace cloudflareMix(long seed, int sources) {
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> times = new ArrayList<>(sources);
    for (int s = 0; s < sources; s++) {
      boolean attacker = random.nextDouble() < 0.01;
      double factor =
          attacker ? 1.5 + 8.5 * random.nextDouble() : 0.01 + 0.29 * random.nextDouble();
      times.add(poisson(random, rate(factor), START_NANOS, durationNanos));
    }
    return trace(
        "cloudflare-mix", "99% of sources at 0.01x-0.3x the limit, 1% at 1.5x-10x", seed, times);
  }

  private Trace trace(String name, String description, long seed, List<long[]> times) {
    return new Trace(name, description, seed, limit, windowNanos, List.copyOf(times));
  }

  /** Arrival times of a Poisson process of {@code ratePerNano} in [start, start + length). */
  private static long[] poisson(
      SplittableRandom random, double ratePerNano, long startNanos, long lengthNanos) {
    LongList times = new LongList();
    double meanGap = 1.0 / ratePerNano;
    double t = startNanos + exponential(random, meanGap);
    double end = (double) startNanos + lengthNanos;
    while (t < end) {
      times.add((long) t);
      t += exponential(random, meanGap);
    }
    return times.toArray();
  }

  /** {@code count} times uniform in [start, start + length), sorted. */
  private static long[] uniform(SplittableRandom random, long count, long startNanos, long length) {
    long[] times = new long[(int) count];
    for (int i = 0; i < count; i++) {
      times[i] = startNanos + (long) (random.nextDouble() * length);
    }
    Arrays.sort(times);
    return times;
  }

  private static double exponential(SplittableRandom random, double mean) {
    return -mean * Math.log(1.0 - random.nextDouble());
  }

  /** A standard normal sample (Box-Muller). */
  private static double gaussian(SplittableRandom random) {
    double u = 1.0 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
  }

  /** A growable array of longs, to keep traces of millions of requests unboxed. */
  static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    void addAll(long[] more) {
      for (long value : more) {
        add(value);
      }
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
