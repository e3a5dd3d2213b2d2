package dev.sluice.core.spec;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One limit as written: {@code {"limit": 10, "window": "1s", "algorithm": "gcra", "burst": 5}}.
 * Every field is boxed so that "absent" is visible; {@link #toLimit} applies the defaults and names
 * the field at fault.
 *
 * @param limit permits per window, required
 * @param window {@code 250ms}, {@code 1s}, {@code 1m}, {@code 1h}, {@code 1d} or ISO-8601, required
 * @param algorithm a wire name ({@link Algorithm#wireName()}); sliding_window when absent
 * @param burst token_bucket, gcra and leaky_bucket only
 * @param buckets sliding_buckets only
 * @param permitTtl concurrency only, required there (instead of {@code window}): how long a permit
 *     lives unless released, a duration like {@code window}
 */
public record LimitSpec(
    @Nullable Long limit,
    @Nullable String window,
    @Nullable String algorithm,
    @Nullable Long burst,
    @Nullable Integer buckets,
    @Nullable String permitTtl) {

  /** The fields of a limit, in the order the documentation lists them. */
  public static final String FIELDS = "limit, window, algorithm, burst, buckets, permitTtl";

  /** A limit with no {@code permitTtl} (every algorithm but concurrency). */
  public LimitSpec(
      @Nullable Long limit,
      @Nullable String window,
      @Nullable String algorithm,
      @Nullable Long burst,
      @Nullable Integer buckets) {
    this(limit, window, algorithm, burst, buckets, null);
  }

  /**
   * The limit these fields describe, validated.
   *
   * @param at the prefix of the field names in errors: {@code ""} or {@code "limits[1]."}
   * @throws InvalidPolicyException naming {@code at + field}
   */
  public Limit toLimit(String at) {
    try {
      Algorithm resolved =
          algorithm == null ? Algorithm.SLIDING_WINDOW : Algorithm.fromWireName(algorithm);
      if (resolved.inFlight()) {
        return inFlight(resolved);
      }
      if (permitTtl != null) {
        throw new InvalidPolicyException(
            "permitTtl",
            "applies to concurrency only; " + resolved.wireName() + " counts permits per window");
      }
      if (limit == null) {
        throw new InvalidPolicyException("limit", "is required: permits per window");
      }
      if (window == null) {
        throw new InvalidPolicyException(
            "window", "is required, e.g. \"1m\", \"250ms\" or \"PT1M\"");
      }
      Limit.Builder builder = Limit.builder().limit(limit).window(parseWindow(window));
      builder.algorithm(resolved);
      if (burst != null) {
        builder.burst(burst);
      }
      if (buckets != null) {
        builder.buckets(buckets);
      }
      return builder.build();
    } catch (InvalidPolicyException e) {
      throw at.isEmpty() ? e : new InvalidPolicyException(at + e.field(), problem(e));
    }
  }

  /** A concurrency limit: {@code limit} permits in flight, each living {@code permitTtl}. */
  private Limit inFlight(Algorithm resolved) {
    if (window != null) {
      throw new InvalidPolicyException(
          "window",
          "concurrency has no window; give permitTtl, how long a permit lives unless released");
    }
    if (limit == null) {
      throw new InvalidPolicyException("limit", "is required: permits in flight at once");
    }
    if (permitTtl == null) {
      throw new InvalidPolicyException(
          "permitTtl", "is required for concurrency: how long a permit lives, e.g. \"30s\"");
    }
    Duration ttl = Durations.parse("permitTtl", permitTtl);
    if (ttl.isZero() || ttl.isNegative()) {
      throw new InvalidPolicyException(
          "permitTtl", "must be positive (1ms to 30d), was '" + permitTtl + "'");
    }
    Limit.Builder builder = Limit.builder().algorithm(resolved).limit(limit).window(ttl);
    if (burst != null) {
      builder.burst(burst);
    }
    if (buckets != null) {
      builder.buckets(buckets);
    }
    try {
      return builder.build();
    } catch (InvalidPolicyException e) {
      throw e.field().equals("window")
          ? new InvalidPolicyException("permitTtl", problem(e).replace("window", "permitTtl"))
          : e;
    }
  }

  /** Whether any field is given. (Not {@code isEmpty}: JSON writers take that for a field.) */
  public boolean hasAnyField() {
    return limit != null
        || window != null
        || algorithm != null
        || burst != null
        || buckets != null
        || permitTtl != null;
  }

  /**
   * The fields of {@code limit}, defaults resolved: {@code burst} and {@code buckets} only where
   * the algorithm takes them, so that the answer can be sent back as it is.
   */
  public static LimitSpec of(Limit limit) {
    boolean inFlight = limit.algorithm().inFlight();
    return new LimitSpec(
        limit.limit(),
        inFlight ? null : Durations.format(limit.window()),
        limit.algorithm().wireName(),
        limit.algorithm().hasBurst() ? limit.burst() : null,
        limit.algorithm().hasBuckets() ? limit.buckets() : null,
        inFlight ? Durations.format(limit.window()) : null);
  }

  /**
   * Parses a window, quoting the text as written when it is not positive ({@code "0s"}), rather
   * than a normalized form of it.
   */
  public static Duration parseWindow(String text) {
    Duration window = Durations.parse("window", text);
    if (window.isZero() || window.isNegative()) {
      throw new InvalidPolicyException(
          "window", "must be positive (1ms to 30d), was '" + text + "'");
    }
    return window;
  }

  /** The problem part of an {@link InvalidPolicyException}, without its "field: " prefix. */
  public static String problem(InvalidPolicyException e) {
    String message = e.getMessage();
    String prefix = e.field() + ": ";
    return message != null && message.startsWith(prefix)
        ? message.substring(prefix.length())
        : String.valueOf(message);
  }
}
