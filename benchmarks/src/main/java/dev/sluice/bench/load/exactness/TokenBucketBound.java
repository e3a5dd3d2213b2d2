package dev.sluice.bench.load.exactness;

import java.util.Locale;

/**
 * The bound of a token bucket of {@code capacity} tokens refilled at {@code L} per {@code W}
 * (Bucket4j's greedy bandwidth, Sluice's {@code token_bucket}, {@code gcra} with {@code capacity =
 * burst + 1}): in any interval of length {@code d}, at most {@code capacity + d × L / W}
 * admissions.
 *
 * <h2>How it is checked from counts</h2>
 *
 * The admissions counted in sub-windows {@code i..j} (each {@code b = W/16} long) were surely
 * decided inside an interval of length {@code (j - i + 1) × b}, so a correct bucket admitted at
 * most {@code capacity + (j - i + 1) × L / 16} of them. A sequence fits all of these constraints
 * exactly when a reference bucket of {@code capacity + L/16} tokens, full at the start of the round
 * and refilled by {@code L/16} at the start of each sub-window, has a token for every counted
 * admission: the discrete token bucket with that burst and rate. Tokens are kept in sixteenths, so
 * the arithmetic is exact in integers. Starting full is the most generous assumption about what
 * happened before the round.
 *
 * <h2>How many were too many</h2>
 *
 * The admissions the reference bucket has no token for. For unit-cost requests that greedy policer
 * keeps as many as any subset that fits (keeping an earlier admission instead of a later one never
 * leaves fewer tokens afterwards), so the figure is the fewest counted admissions that had to go.
 */
public final class TokenBucketBound implements AdmissionBound {
  private final long capacity;
  private final long limit;
  private final long windowNanos;
  private final long fullSixteenths;

  public TokenBucketBound(long capacity, long limit, long windowNanos) {
    if (capacity < 1 || limit < 1 || windowNanos < SUB_WINDOWS || windowNanos % SUB_WINDOWS != 0) {
      throw new IllegalArgumentException(
          "capacity "
              + capacity
              + ", "
              + limit
              + " per "
              + windowNanos
              + " ns has no token-bucket bound here");
    }
    this.capacity = capacity;
    this.limit = limit;
    this.windowNanos = windowNanos;
    this.fullSixteenths = Math.addExact(Math.multiplyExact(capacity, SUB_WINDOWS), limit);
  }

  @Override
  public long subWindowNanos() {
    return windowNanos / SUB_WINDOWS;
  }

  @Override
  public long overAdmitted(long[] subWindows, int[] counts, int from, int to) {
    long total = 0;
    long tokens = fullSixteenths; // in sixteenths of a token; one admission costs 16
    long last = from < to ? subWindows[from] - 1 : 0;
    for (int i = from; i < to; i++) {
      long elapsed = subWindows[i] - last;
      // Refill L sixteenths per sub-window, capped (and without overflow on a long gap).
      tokens =
          elapsed >= (fullSixteenths - tokens) / limit + 1
              ? fullSixteenths
              : Math.min(fullSixteenths, tokens + elapsed * limit);
      long fit = Math.min(counts[i], tokens / SUB_WINDOWS);
      total += counts[i] - fit;
      tokens -= fit * SUB_WINDOWS;
      last = subWindows[i];
    }
    return total;
  }

  @Override
  public String describe() {
    return String.format(
        Locale.ROOT,
        "token bucket: ≤ %d + d × %d / %d ms in any interval d",
        capacity,
        limit,
        windowNanos / 1_000_000);
  }
}
