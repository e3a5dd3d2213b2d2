package dev.sluice.node.envoy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.StateKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The one place the Envoy front end meets Sluice's core: it turns a limit into a {@link Policy}, a
 * matched descriptor into a counter key, and counts a request's descriptors with one {@link
 * RateLimiter#tryAcquireAllAsync} call on the node's limiter, the same decision path as every other
 * front end (the grid member's limiter, or the client SDK's in client mode). Nothing else in this
 * package imports a core type but {@link Policy}, held opaquely by {@link Limit}, and the header
 * writer every surface shares ({@link ResponseHeaders}).
 *
 * <h2>Counter keys</h2>
 *
 * Each counted descriptor is an inline policy on the subject {@code envoy/<domain>|<entries>}, e.g.
 * {@code envoy/edge|remote_address=10.0.0.1}: the peer's cache key without its time suffix. Each
 * inline policy has its own state on a subject ({@link StateKey#inline}), so two limits on one
 * descriptor path (before and after a reload, or a request's override) never count into one state.
 * A subject longer than the grid's 512 bytes keeps a readable prefix of 400 bytes and ends with the
 * SHA-256 of the whole.
 */
final class SluiceCounting {
  /**
   * What Sluice decided for one counted descriptor.
   *
   * @param shadowBanned denied under a limit whose {@code sluice.on_denied} is {@code shadow_ban}
   */
  record Count(
      boolean allowed,
      boolean shadowDenied,
      boolean shadowBanned,
      long limit,
      long remaining,
      long retryAfterNanos,
      long resetAfterNanos) {}

  /** One descriptor to count: {@code hits} permits of {@code policy} on {@code subject}. */
  record Request(Policy policy, String subject, long hits) {}

  /** What a long subject keeps of itself before the hash: 400 + 1 + 64 bytes stay under 512. */
  private static final int PREFIX_BYTES = 400;

  private final RateLimiter limiter;

  SluiceCounting(RateLimiter limiter) {
    this.limiter = limiter;
  }

  /**
   * The policy of a limit: {@code limit} per {@code window}, counted by {@code algorithm} (default
   * sliding_window), its denials rejected or, with {@code onDenied} {@code shadow_ban}, shadow
   * bans.
   *
   * @throws InvalidPolicyException naming the field ({@code algorithm}, {@code limit}, {@code
   *     window}, {@code burst}, {@code buckets}, {@code onDenied}) if Sluice cannot count it
   */
  static Policy policy(
      long limit,
      Duration window,
      @Nullable String algorithm,
      @Nullable Long burst,
      @Nullable Integer buckets,
      boolean shadow,
      @Nullable String onDenied) {
    Policy.Builder builder = Policy.builder().limit(limit).window(window).shadow(shadow);
    if (onDenied != null) {
      builder.onDenied(Policy.OnDenied.fromWireName(onDenied));
    }
    if (algorithm != null) {
      Algorithm parsed = Algorithm.fromWireName(algorithm);
      if (parsed == Algorithm.LEAKY_BUCKET) {
        throw new InvalidPolicyException(
            "algorithm",
            "leaky_bucket shapes traffic by telling callers to wait, and Envoy cannot wait; use"
                + " gcra for the same rate with a burst");
      }
      builder.algorithm(parsed);
    }
    if (burst != null) {
      builder.burst(burst);
    }
    if (buckets != null) {
      builder.buckets(buckets);
    }
    return builder.build();
  }

  /** {@code window} as a duration setting spells it ({@code 10s}, {@code PT1M}). */
  static Duration window(String text) {
    return Durations.parse("window", text);
  }

  /** The most hits one request can ask of {@code policy}; more could never be admitted. */
  static long capacity(Policy policy) {
    return policy.capacity();
  }

  /** The counter key of a matched descriptor (see the class comment). */
  static String subject(String domain, String counterPath) {
    String subject = "envoy/" + EnvoyConfig.escape(domain) + '|' + counterPath;
    if (utf8Length(subject) <= StateKey.MAX_SUBJECT_BYTES) {
      return subject;
    }
    int end = 0;
    long bytes = 0;
    while (end < subject.length() && bytes + utf8Length(subject.charAt(end)) <= PREFIX_BYTES) {
      bytes += utf8Length(subject.charAt(end));
      end++;
    }
    if (end > 0 && Character.isHighSurrogate(subject.charAt(end - 1))) {
      end--;
    }
    return subject.substring(0, end) + "#" + sha256(subject);
  }

  /**
   * Counts every request in order, as one batch; the answers are in the same order.
   *
   * @throws InvalidPolicyException if a request cannot be counted (a bad subject); nothing is
   *     counted then
   */
  CompletionStage<List<Count>> count(List<Request> requests) {
    if (requests.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<Check> checks = new ArrayList<>(requests.size());
    for (Request request : requests) {
      checks.add(Check.inline(request.policy(), request.subject(), request.hits()));
    }
    return limiter
        .tryAcquireAllAsync(checks)
        .thenApply(
            decisions -> {
              List<Count> counts = new ArrayList<>(decisions.size());
              for (Decision d : decisions) {
                counts.add(
                    new Count(
                        d.allowed(),
                        d.shadowDenied(),
                        d.shadowBanned(),
                        d.limit(),
                        d.remaining(),
                        d.retryAfterNanos(),
                        d.resetAfterNanos()));
              }
              return counts;
            });
  }

  private static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      bytes += utf8Length(text.charAt(i));
    }
    return bytes;
  }

  /** A char's share of its UTF-8 bytes: each half of a surrogate pair counts 2 of the pair's 4. */
  private static int utf8Length(char c) {
    return c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
