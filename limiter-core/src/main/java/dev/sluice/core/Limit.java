package dev.sluice.core;

import java.math.BigInteger;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One limit: {@code limit} permits per {@code window}, counted by {@code algorithm}. A {@link
 * Policy} holds one or several (10 per second and 1,000 per hour); a request is admitted only if
 * every one of them admits it.
 *
 * <p>Construction validates every field and names the bad one ({@link InvalidPolicyException}), so
 * a {@code Limit} that exists is one its algorithm can run without overflow or rounding a rate to
 * zero.
 *
 * @param algorithm how permits are counted; {@link Algorithm#SLIDING_WINDOW} by default
 * @param limit permits per window, 1 to {@value #MAX_LIMIT}
 * @param window the window length, {@link #MIN_WINDOW} to {@link #MAX_WINDOW}
 * @param burst token_bucket capacity, gcra burst (limit = burst + 1), leaky_bucket queue length;
 *     unused by the window algorithms, and the {@link Builder} refuses one for them. See {@link
 *     #defaultBurst}. For {@code concurrency} the limit is the permits in flight and the window is
 *     how long a permit lives ({@code permitTtl} in rules files and JSON).
 * @param buckets sub-windows of sliding_buckets (1 to {@value #MAX_BUCKETS}); unused elsewhere, and
 *     the {@link Builder} refuses a count for other algorithms
 */
public record Limit(Algorithm algorithm, long limit, Duration window, long burst, int buckets) {

  /** Largest limit accepted. Larger counts are not rate limits but typos. */
  public static final long MAX_LIMIT = 1_000_000_000L;

  public static final Duration MIN_WINDOW = Duration.ofMillis(1);
  public static final Duration MAX_WINDOW = Duration.ofDays(30);

  /**
   * Highest rate accepted, in permits per second. At this rate one permit is worth one nanosecond,
   * the resolution of the member clock; beyond it emission intervals would round to zero.
   */
  public static final long MAX_RATE_PER_SECOND = 1_000_000_000L;

  public static final int DEFAULT_BUCKETS = 60;
  public static final int MAX_BUCKETS = 3_600;

  /**
   * Longest burst accepted for gcra, token_bucket and leaky_bucket, as the time the burst takes to
   * drain at the sustained rate ({@code slots × window / limit}). Their state is an instant up to
   * this far ahead of now; a century keeps it far from overflowing a nanosecond clock.
   */
  public static final Duration MAX_BURST_SPAN = Duration.ofDays(36_500);

  /**
   * The largest limit a concurrency limit may have: it keeps one entry (id, expiry) per permit in
   * flight, {@code 16 × limit} bytes per key.
   */
  public static final long MAX_CONCURRENCY = 10_000L;

  /** The system property that sets {@link #SLIDING_LOG_MAX_LIMIT}. */
  public static final String SLIDING_LOG_MAX_LIMIT_PROPERTY = "sluice.slidingLog.maxLimit";

  /** {@link #SLIDING_LOG_MAX_LIMIT} when {@link #SLIDING_LOG_MAX_LIMIT_PROPERTY} is not set. */
  public static final long DEFAULT_SLIDING_LOG_MAX_LIMIT = 10_000L;

  /**
   * The highest cap {@link #SLIDING_LOG_MAX_LIMIT_PROPERTY} may set: a ring of a million timestamps
   * is 8 MB per key, past which sliding_buckets is the honest choice.
   */
  public static final long SLIDING_LOG_MAX_LIMIT_CEILING = 1_000_000L;

  /**
   * The largest limit a sliding_log limit may have. The sliding log keeps one timestamp per
   * admitted permit, {@code 8 × (limit + 2)} bytes per key, so its limit is capped.
   *
   * <p>The cap is a deployment's memory budget, not part of a rule, so it is one JVM-wide setting:
   * the system property {@value #SLIDING_LOG_MAX_LIMIT_PROPERTY} (1 to {@value
   * #SLIDING_LOG_MAX_LIMIT_CEILING}, default {@value #DEFAULT_SLIDING_LOG_MAX_LIMIT}), read once
   * when this class is loaded, so every limit in the JVM is validated against the same cap and a
   * {@code Limit} that exists stays valid. Set it to the same value on every member and client of a
   * cluster: a rule with a sliding_log limit above a JVM's cap is refused there. A malformed or
   * out-of-range value fails the first use of {@code Limit} with an error naming the property.
   */
  public static final long SLIDING_LOG_MAX_LIMIT =
      slidingLogMaxLimit(System.getProperty(SLIDING_LOG_MAX_LIMIT_PROPERTY));

  public Limit {
    if (algorithm == null) {
      throw new InvalidPolicyException("algorithm", "is required");
    }
    if (window == null) {
      throw new InvalidPolicyException("window", "is required");
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidPolicyException(
          "limit", "must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
      throw new InvalidPolicyException(
          "window", "must be between 1ms and 30d, was " + Durations.format(window));
    }
    if (window.toNanos() / limit < 1_000_000_000L / MAX_RATE_PER_SECOND) {
      throw new InvalidPolicyException(
          "limit",
          limit
              + " per "
              + Durations.format(window)
              + " is faster than one permit per nanosecond; use a longer window");
    }
    if (burst < 0 || burst > MAX_LIMIT) {
      throw new InvalidPolicyException(
          "burst", "must be between 0 and " + MAX_LIMIT + ", was " + burst);
    }
    if (algorithm == Algorithm.TOKEN_BUCKET && burst < 1) {
      throw new InvalidPolicyException(
          "burst", "token_bucket holds burst tokens and needs at least 1, was " + burst);
    }
    checkBurstSpan(algorithm, limit, window, burst);
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new InvalidPolicyException(
          "buckets", "must be between 1 and " + MAX_BUCKETS + ", was " + buckets);
    }
    if (algorithm == Algorithm.SLIDING_BUCKETS && window.toNanos() / buckets < 1_000_000L) {
      throw new InvalidPolicyException(
          "buckets",
          buckets
              + " sub-windows of a "
              + Durations.format(window)
              + " window are shorter than 1ms; use fewer buckets");
    }
    if (algorithm == Algorithm.CONCURRENCY && limit > MAX_CONCURRENCY) {
      throw new InvalidPolicyException(
          "limit",
          "concurrency keeps one entry per permit in flight and allows at most "
              + MAX_CONCURRENCY
              + ", was "
              + limit);
    }
    if (algorithm == Algorithm.SLIDING_LOG && limit > SLIDING_LOG_MAX_LIMIT) {
      throw new InvalidPolicyException(
          "limit",
          "sliding_log keeps one timestamp per admitted permit and allows at most "
              + SLIDING_LOG_MAX_LIMIT
              + " per window, was "
              + limit
              + "; use sliding_window or sliding_buckets for larger limits");
    }
  }

  /**
   * The sliding log cap that the value of {@value #SLIDING_LOG_MAX_LIMIT_PROPERTY} sets: the
   * default when it is absent.
   *
   * @throws IllegalArgumentException naming the property if the value is not a whole number from 1
   *     to {@value #SLIDING_LOG_MAX_LIMIT_CEILING}
   */
  static long slidingLogMaxLimit(@Nullable String value) {
    if (value == null) {
      return DEFAULT_SLIDING_LOG_MAX_LIMIT;
    }
    long cap;
    try {
      cap = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      cap = 0;
    }
    if (cap < 1 || cap > SLIDING_LOG_MAX_LIMIT_CEILING) {
      throw new IllegalArgumentException(
          SLIDING_LOG_MAX_LIMIT_PROPERTY
              + " must be a whole number from 1 to "
              + SLIDING_LOG_MAX_LIMIT_CEILING
              + ", was '"
              + value
              + "'");
    }
    return cap;
  }

  private static void checkBurstSpan(Algorithm algorithm, long limit, Duration window, long burst) {
    long slots =
        switch (algorithm) {
          case GCRA, LEAKY_BUCKET -> burst + 1;
          case TOKEN_BUCKET -> burst;
          default -> 0;
        };
    BigInteger spanNanos =
        BigInteger.valueOf(slots)
            .multiply(BigInteger.valueOf(window.toNanos()))
            .divide(BigInteger.valueOf(limit));
    if (spanNanos.compareTo(BigInteger.valueOf(MAX_BURST_SPAN.toNanos())) > 0) {
      throw new InvalidPolicyException(
          "burst",
          "a burst of "
              + burst
              + " at "
              + limit
              + " per "
              + Durations.format(window)
              + " takes more than 100 years to drain; use a smaller burst");
    }
  }

  /** {@code limit} per {@code window} on the default algorithm, sliding_window. */
  public static Limit of(long limit, Duration window) {
    return builder().limit(limit).window(window).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The burst an algorithm uses when none is given: a token bucket holds one window's worth, a gcra
   * key admits {@code limit} at once ({@code burst = limit - 1}, since gcra's limit is burst + 1),
   * and a leaky bucket queues one window's worth.
   */
  public static long defaultBurst(Algorithm algorithm, long limit) {
    return switch (algorithm) {
      case TOKEN_BUCKET, LEAKY_BUCKET -> limit;
      case GCRA -> limit - 1;
      default -> 0;
    };
  }

  public long windowNanos() {
    return window.toNanos();
  }

  /**
   * The most permits a key holds under this limit: what a fresh key's answer reports as its {@code
   * limit}, and the most one request may ask for. The count for the window algorithms and
   * concurrency; the bucket's size ({@code burst}) for token_bucket; {@code burst + 1} for gcra and
   * leaky_bucket (redis-cell's limit: the request being served plus {@code burst} more).
   */
  public long capacity() {
    return switch (algorithm) {
      case SLIDING_WINDOW, FIXED_WINDOW, SLIDING_LOG, SLIDING_BUCKETS, CONCURRENCY -> limit;
      case TOKEN_BUCKET -> burst;
      case GCRA, LEAKY_BUCKET -> burst + 1;
    };
  }

  /** The same limit with another count: used by callers that scale or tune a rule. */
  public Limit withLimit(long newLimit) {
    return new Limit(algorithm, newLimit, window, burst, buckets);
  }

  /**
   * How the limit reads in docs and messages: {@code 10 per 1s}, plus the algorithm and burst where
   * they are not the defaults.
   */
  public String describe() {
    StringBuilder text = new StringBuilder();
    text.append(limit).append(" per ").append(Durations.format(window));
    if (algorithm != Algorithm.SLIDING_WINDOW) {
      text.append(' ').append(algorithm.wireName());
    }
    if (algorithm.hasBurst() && burst != defaultBurst(algorithm, limit)) {
      text.append(" burst ").append(burst);
    }
    if (algorithm.hasBuckets() && buckets != DEFAULT_BUCKETS) {
      text.append(" buckets ").append(buckets);
    }
    return text.toString();
  }

  /** Builds a {@link Limit}; unset fields take their documented defaults. */
  public static final class Builder {
    private Algorithm algorithm = Algorithm.SLIDING_WINDOW;
    private long limit;
    private Duration window = Duration.ZERO;
    private @Nullable Long burst;
    private @Nullable Integer buckets;

    private Builder() {}

    public Builder algorithm(Algorithm algorithm) {
      this.algorithm = algorithm;
      return this;
    }

    public Builder limit(long limit) {
      this.limit = limit;
      return this;
    }

    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    public Builder burst(long burst) {
      this.burst = burst;
      return this;
    }

    public Builder buckets(int buckets) {
      this.buckets = buckets;
      return this;
    }

    /**
     * The limit, validated. A burst or a bucket count given for an algorithm that has none is an
     * error, not ignored: {@code burst: 20} on a sliding window reads like a promise the limiter
     * would not keep.
     */
    public Limit build() {
      if (algorithm == null) {
        throw new InvalidPolicyException("algorithm", "is required");
      }
      if (burst != null && !algorithm.hasBurst()) {
        throw new InvalidPolicyException(
            "burst",
            "applies to token_bucket, gcra and leaky_bucket; "
                + algorithm.wireName()
                + " has no burst (its limit is the most it admits per window)");
      }
      if (buckets != null && !algorithm.hasBuckets()) {
        throw new InvalidPolicyException(
            "buckets", "applies to sliding_buckets only; " + algorithm.wireName() + " has none");
      }
      long resolvedBurst = burst != null ? burst : defaultBurst(algorithm, Math.max(limit, 1));
      int resolvedBuckets = buckets != null ? buckets : DEFAULT_BUCKETS;
      return new Limit(algorithm, limit, window, resolvedBurst, resolvedBuckets);
    }
  }
}
