package dev.sluice.node.envoy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Futures;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the Envoy front end meets Sluice's core: it turns a limit into a {@link Policy} and
 * a rule, a matched descriptor into a counter key, and counts a request's descriptors with one
 * {@link RateLimiter#tryAcquireAllAsync} call on the node's limiter, the same decision path as
 * every other front end (the grid member's limiter, or the client SDK's in client mode), whose
 * {@link Decision}s {@link ShouldRateLimit} reads as they come.
 *
 * <h2>Counter keys</h2>
 *
 * Each limit of the config is a named rule, one per domain and descriptor path ({@link #ruleName},
 * e.g. {@code envoy.edge.3f9a0c...} for {@code remote_address} in domain {@code edge}), defined in
 * the node's rule store when the config is loaded or reloaded ({@link #define}). A counted
 * descriptor counts on the subject {@code envoy/<domain>|<entries>}, e.g. {@code
 * envoy/edge|remote_address=10.0.0.1}: the peer's cache key without its time suffix. So an edit of
 * the limit ({@code requests_per_unit}, {@code unit}, Sluice's algorithm) is a rule change: every
 * key keeps its counters, carried over as a named rule's are, never more permissive than what was
 * admitted (the peer keeps its counters across an edit too; before, each limit was an inline policy
 * whose identity was in the state key, and an edit started every key from zero). A limit Envoy
 * sends in a request stays an inline policy ({@link StateKey#inline}): it has no config path. A
 * subject longer than the grid's 512 bytes keeps a readable prefix of 400 bytes and ends with the
 * SHA-256 of the whole.
 */
final class SluiceCounting {
  /**
   * One descriptor to count: {@code hits} permits on {@code subject}, under the config's {@code
   * rule} for its descriptor path, or (a limit the request carries) under {@code policy} inline.
   */
  record Request(@Nullable String rule, Policy policy, String subject, long hits) {
    Check check() {
      return rule == null ? Check.inline(policy, subject, hits) : Check.of(rule, subject, hits);
    }
  }

  /** What a long subject keeps of itself before the hash: 400 + 1 + 64 bytes stay under 512. */
  private static final int PREFIX_BYTES = 400;

  /** What a rule name keeps of the domain, for people reading the rule list. */
  private static final int DOMAIN_CHARS = 24;

  private static final Logger LOG = LoggerFactory.getLogger(SluiceCounting.class);

  private final RateLimiter limiter;
  private final Supplier<EnvoyConfig> config;

  /**
   * @param config the config in force: its rules are defined again if a count finds one missing
   *     (deleted through the API, or the grid was away when the config was loaded)
   */
  SluiceCounting(RateLimiter limiter, Supplier<EnvoyConfig> config) {
    this.limiter = limiter;
    this.config = config;
  }

  /**
   * The name of the rule that counts a limit of {@code domain} at {@code descriptorPath} (its
   * levels as {@code key=value|key=value}): {@code envoy.}, the domain as far as a rule name can
   * spell it, and 96 bits of the SHA-256 of both. The same for every edit of the limit, and on
   * every node that reads the same config; another path, or another domain, has another.
   */
  static String ruleName(String domain, String descriptorPath) {
    StringBuilder readable = new StringBuilder();
    for (int i = 0; i < domain.length() && readable.length() < DOMAIN_CHARS; i++) {
      char c = domain.charAt(i);
      boolean allowed =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-';
      readable.append(allowed ? c : '_');
    }
    return "envoy." + readable + "." + sha256(domain + '\u0000' + descriptorPath).substring(0, 24);
  }

  /**
   * Defines the rule of every limit of {@code loaded} that the store does not hold as it is: a new
   * limit, or an edited one (a rule change, which keeps the counters). A rule the grid cannot take
   * now is logged and defined again by the first count that finds it missing. A limit removed from
   * the config leaves its rule, unused, for nodes that still read the older config.
   */
  void define(EnvoyConfig loaded) {
    for (Map.Entry<String, Policy> rule : loaded.rules().entrySet()) {
      try {
        Optional<Rule> held = limiter.rules().find(rule.getKey());
        if (held.isEmpty() || !held.get().policy().equals(rule.getValue())) {
          limiter.rules().put(new Rule(rule.getKey(), rule.getValue()));
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Envoy limit rule {} not defined now ({}); the next count that needs it defines it",
            rule.getKey(),
            e.toString());
      }
    }
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
  CompletionStage<List<Decision>> count(List<Request> requests) {
    if (requests.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<Check> checks = new ArrayList<>(requests.size());
    for (Request request : requests) {
      checks.add(request.check());
    }
    return decide(checks, true);
  }

  /**
   * Decides {@code checks}; where a rule is missing (a batch with an unknown rule counts nothing),
   * defines the config's rules and decides once more.
   */
  private CompletionStage<List<Decision>> decide(List<Check> checks, boolean mayDefine) {
    CompletableFuture<List<Decision>> decided = tryAcquireAll(checks);
    if (!mayDefine) {
      return decided;
    }
    return decided
        .handle(
            (decisions, failure) -> {
              if (failure != null && Futures.unwrap(failure) instanceof UnknownRuleException) {
                define(config.get());
                return decide(checks, false);
              }
              return decided;
            })
        .thenCompose(stage -> stage);
  }

  /** The limiter's answer, or its refusal as a failed future (on a member it throws at once). */
  private CompletableFuture<List<Decision>> tryAcquireAll(List<Check> checks) {
    try {
      return limiter.tryAcquireAllAsync(checks).toCompletableFuture();
    } catch (UnknownRuleException e) {
      return CompletableFuture.failedFuture(e);
    }
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
