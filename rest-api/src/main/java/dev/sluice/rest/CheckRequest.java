package dev.sluice.rest;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /v1/check} and one element of a batch: a named rule, or an inline policy
 * (redis-cell style), never both.
 *
 * <pre>
 * {"rule": "login", "key": "203.0.113.7", "cost": 1}
 * {"key": "203.0.113.7", "limit": 10, "window": "1m", "algorithm": "gcra", "burst": 5}
 * </pre>
 *
 * Every field is boxed so that "absent" is visible: {@link #toCheck()} applies the defaults and
 * names the field at fault when something is missing or out of bounds.
 */
public record CheckRequest(
    @Nullable String rule,
    @Nullable String key,
    @Nullable Long cost,
    @Nullable Long limit,
    @Nullable String window,
    @Nullable String algorithm,
    @Nullable Long burst,
    @Nullable Integer buckets,
    @Nullable Boolean shadow,
    @Nullable Boolean countDenied) {

  /** The check this request asks for, validated; nothing has been counted yet. */
  Check toCheck() {
    if (key == null) {
      throw new InvalidPolicyException("key", "is required: the subject to limit, e.g. a user id");
    }
    long permits = cost == null ? 1 : cost;
    if (rule != null) {
      if (hasInlinePolicy()) {
        throw new InvalidPolicyException(
            "rule",
            "give either a rule name or an inline policy (limit, window, algorithm, burst,"
                + " buckets, shadow, countDenied), not both");
      }
      try {
        Rule.checkName(rule);
      } catch (InvalidPolicyException e) {
        throw new InvalidPolicyException("rule", CheckRoutes.problem(e));
      }
      return Check.of(rule, key, permits);
    }
    if (limit == null && window == null && !hasInlinePolicy()) {
      throw new InvalidPolicyException(
          "rule", "is required, or give an inline policy with limit and window");
    }
    return Check.inline(toPolicy(), key, permits);
  }

  private boolean hasInlinePolicy() {
    return limit != null
        || window != null
        || algorithm != null
        || burst != null
        || buckets != null
        || shadow != null
        || countDenied != null;
  }

  /**
   * Parses a window, quoting the text as written when it is not positive ({@code "0s"}), rather
   * than a normalized form of it.
   */
  static Duration parseWindow(String text) {
    Duration window = Durations.parse("window", text);
    if (window.isZero() || window.isNegative()) {
      throw new InvalidPolicyException(
          "window", "must be positive (1ms to 30d), was '" + text + "'");
    }
    return window;
  }

  private Policy toPolicy() {
    if (limit == null) {
      throw new InvalidPolicyException("limit", "is required for an inline policy");
    }
    if (window == null) {
      throw new InvalidPolicyException(
          "window", "is required for an inline policy, e.g. \"1m\", \"250ms\" or \"PT1M\"");
    }
    return policy(limit, window, algorithm, burst, buckets, shadow, countDenied);
  }

  /**
   * The policy these JSON fields describe, with each absent optional field at its default: one
   * place for inline checks and {@code PUT /v1/rules/{name}} alike. {@link Policy} validates.
   */
  static Policy policy(
      long limit,
      String window,
      @Nullable String algorithm,
      @Nullable Long burst,
      @Nullable Integer buckets,
      @Nullable Boolean shadow,
      @Nullable Boolean countDenied) {
    Policy.Builder builder = Policy.builder().limit(limit).window(parseWindow(window));
    if (algorithm != null) {
      builder.algorithm(Algorithm.fromWireName(algorithm));
    }
    if (burst != null) {
      builder.burst(burst);
    }
    if (buckets != null) {
      builder.buckets(buckets);
    }
    if (shadow != null) {
      builder.shadow(shadow);
    }
    if (countDenied != null) {
      builder.countDenied(countDenied);
    }
    return builder.build();
  }
}
