package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.time.Instant;

/**
 * One key's life under one policy, told as a timeline: {@code at("12s").take(1)}. Time is an offset
 * from an epoch-aligned origin, so windows start where the examples say they do.
 */
final class Timeline {
  final LimiterAlgorithm algorithm;
  long[] state;
  private final long originNanos;
  private long nowNanos;

  Timeline(Policy policy) {
    this(policy, 0);
  }

  Timeline(Policy policy, Instant origin) {
    this(policy, origin.getEpochSecond() * 1_000_000_000L + origin.getNano());
  }

  Timeline(Policy policy, long originNanos) {
    this.algorithm = LimiterAlgorithm.of(policy);
    this.state = algorithm.newState();
    this.originNanos = originNanos;
    this.nowNanos = originNanos;
  }

  /** Moves the clock to {@code offset} after the origin ({@code "12s"}, {@code "1500ms"}). */
  Timeline at(String offset) {
    return atNanos(parse(offset));
  }

  Timeline atNanos(long offsetNanos) {
    nowNanos = originNanos + offsetNanos;
    return this;
  }

  /** Moves the clock forward by {@code delayNanos}. */
  Timeline after(long delayNanos) {
    nowNanos += delayNanos;
    return this;
  }

  Decision take(long permits) {
    return algorithm.apply(state, nowNanos, permits);
  }

  Decision take() {
    return take(1);
  }

  Decision peek() {
    return take(0);
  }

  long nowNanos() {
    return nowNanos;
  }

  static long parse(String offset) {
    if (offset.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(offset.substring(0, offset.length() - 2))).toNanos();
    }
    if (offset.endsWith("ns")) {
      return Long.parseLong(offset.substring(0, offset.length() - 2));
    }
    if (offset.endsWith("s")) {
      return Duration.ofSeconds(Long.parseLong(offset.substring(0, offset.length() - 1))).toNanos();
    }
    throw new IllegalArgumentException(offset);
  }

  static long seconds(long seconds) {
    return Duration.ofSeconds(seconds).toNanos();
  }

  static long millis(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }
}
