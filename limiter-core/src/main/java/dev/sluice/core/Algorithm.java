package dev.sluice.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The limiter algorithms Sluice offers, by their wire names (DESIGN §2). */
public enum Algorithm {
  /** Cloudflare's two-counter estimate; the default. */
  SLIDING_WINDOW("sliding_window"),
  /** One counter per epoch-aligned window (INCR + EXPIRE). */
  FIXED_WINDOW("fixed_window"),
  /** Exact: one timestamp per admitted permit, bounded. */
  SLIDING_LOG("sliding_log"),
  /** Figma's N sub-window counters; never over-admits. */
  SLIDING_BUCKETS("sliding_buckets"),
  /** Continuous refill up to a burst capacity. */
  TOKEN_BUCKET("token_bucket"),
  /** Generic cell rate algorithm, redis-cell semantics. */
  GCRA("gcra"),
  /** Shaping: admitted requests are told how long to wait. */
  LEAKY_BUCKET("leaky_bucket");

  private final String wireName;

  Algorithm(String wireName) {
    this.wireName = wireName;
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
