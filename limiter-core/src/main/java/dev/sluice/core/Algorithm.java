package dev.sluice.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The limiter algorithms Sluice offers, by their wire names (docs/algorithms.md). */
public enum Algorithm {
  /** Cloudflare's two-counter estimate; the default. */
  SLIDING_WINDOW("sliding_window", 0),
  /** One counter per epoch-aligned window (INCR + EXPIRE). */
  FIXED_WINDOW("fixed_window", 1),
  /** Exact: one timestamp per admitted permit, bounded. */
  SLIDING_LOG("sliding_log", 2),
  /** Figma's N sub-window counters; never over-admits. */
  SLIDING_BUCKETS("sliding_buckets", 3),
  /** Continuous refill up to a burst capacity. */
  TOKEN_BUCKET("token_bucket", 4),
  /** Generic cell rate algorithm, redis-cell semantics. */
  GCRA("gcra", 5),
  /** Shaping: admitted requests are told how long to wait. */
  LEAKY_BUCKET("leaky_bucket", 6),
  /**
   * Permits in flight: {@code limit} held at once, each released by its id or expiring after the
   * limit's window, its {@code permitTtl}.
   */
  CONCURRENCY("concurrency", 7);

  private final String wireName;
  private final int code;

  Algorithm(String wireName, int code) {
    this.wireName = wireName;
    this.code = code;
  }

  /** The algorithm's code in binary formats; never renumbered (unlike an ordinal). */
  public int code() {
    return code;
  }

  /**
   * The algorithm with this binary code.
   *
   * @throws IllegalArgumentException for a code no algorithm has
   */
  public static Algorithm ofCode(int code) {
    return WireEnums.ofCode(values(), Algorithm::code, code, "algorithm");
  }

  /** The name used in rules files, JSON and metrics, e.g. {@code sliding_window}. */
  public String wireName() {
    return wireName;
  }

  /** Whether a policy of this algorithm takes a {@code burst}: token_bucket, gcra, leaky_bucket. */
  public boolean hasBurst() {
    return this == TOKEN_BUCKET || this == GCRA || this == LEAKY_BUCKET;
  }

  /** Whether a policy of this algorithm takes a {@code buckets} count: sliding_buckets only. */
  public boolean hasBuckets() {
    return this == SLIDING_BUCKETS;
  }

  /**
   * Whether this algorithm limits permits in flight ({@code concurrency}): its window is how long a
   * permit lives ({@code permitTtl}), and an admission holds a permit id.
   */
  public boolean inFlight() {
    return this == CONCURRENCY;
  }

  /**
   * The algorithm with this wire name.
   *
   * @throws InvalidPolicyException naming the field {@code algorithm} and the accepted names
   */
  public static Algorithm fromWireName(String name) {
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (Algorithm algorithm : values()) {
      if (algorithm.wireName.equals(wanted)) {
        return algorithm;
      }
    }
    throw new InvalidPolicyException(
        "algorithm",
        "unknown algorithm '"
            + name
            + "'; expected one of "
            + Arrays.stream(values()).map(Algorithm::wireName).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return wireName;
  }
}
