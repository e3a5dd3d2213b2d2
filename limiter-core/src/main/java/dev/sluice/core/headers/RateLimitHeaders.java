package dev.sluice.core.headers;

import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit headers of an answer, written once for every HTTP surface: the REST API, every
 * HTTP gate of the client SDK and the Envoy front end. Free of any HTTP library: it yields the
 * headers as ordered name/value pairs, and each surface sets them on its own response type.
 *
 * <h2>What is written</h2>
 *
 * The IETF httpapi draft ("RateLimit header fields for HTTP") describes each quota policy and
 * reports on the one that binds, with two Structured Fields; next to them the de-facto headers most
 * clients already read:
 *
 * <pre>
 * RateLimit-Policy: "api-1s";q=10;w=1, "api-1h";q=1000;w=3600   every limit: quota q per w s
 * RateLimit: "api-1s";r=0;t=1                   the binding limit: r remaining, t s until it is whole
 * X-RateLimit-Limit: 10                         the binding limit's quota
 * X-RateLimit-Remaining: 0
 * X-RateLimit-Reset: 1                          seconds, like t
 * Retry-After: 1                                on a denial only, seconds
 * </pre>
 *
 * A policy of one limit is named after its rule ({@code "login"}), or {@code "~inline"} for an
 * inline policy. A policy of several limits names each after the rule and its window ({@code
 * "api-1s"}, {@code "api-1h"}; {@code "api-1s-2"} for the second limit of a window already named),
 * in the policy's order. The binding limit is the one the decision reports on ({@link
 * Decision#bindingLimitIndex()}, chosen by the pipeline: the one that denies for longest, else the
 * one with the fewest permits left), never guessed from the quota, which two limits may share.
 * {@code r} and {@code X-RateLimit-Remaining} are the decision's {@code remaining}, the fewest any
 * limit has left (a request for more is denied), and {@code t} and {@code X-RateLimit-Reset} the
 * binding limit's reset ({@link Decision#bindingResetAfterNanos()}): when the limit the header
 * names is whole again, not every limit (the third payment of a second under 2 per second and 100
 * per day says {@code t=2} beside {@code Retry-After: 2}, not the day's {@code t=86390}).
 *
 * <h2>Rounding</h2>
 *
 * Every delay rounds <em>up</em> to whole seconds ({@link Decision#retryAfterSeconds()}, {@link
 * Decision#bindingResetAfterSeconds()}) so that a client that waits the advertised time succeeds;
 * {@code Retry-After} is at least 1. A window rounds up too, and a sub-second window is advertised
 * as {@code w=1}: the draft only has whole seconds.
 *
 * <h2>Answers without counts</h2>
 *
 * An answer the failure policy made while the grid was unreachable ({@link
 * Decision.DecidedBy#reportsCounts()} is false) knows no count: it carries no count headers, only
 * {@code Retry-After} when it denies. So does an answer whose policy is not known here.
 *
 * <h2>Names</h2>
 *
 * Names are written as Structured Field strings: quoted, with {@code "} and {@code \} escaped, and
 * characters a header cannot hold (outside printable ASCII) as {@code ?}. Rule names never need it;
 * the Envoy front end's names (a domain and descriptor path) may.
 */
public final class RateLimitHeaders {
  public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
  public static final String RATE_LIMIT = "RateLimit";
  public static final String X_RATE_LIMIT_LIMIT = "X-RateLimit-Limit";
  public static final String X_RATE_LIMIT_REMAINING = "X-RateLimit-Remaining";
  public static final String X_RATE_LIMIT_RESET = "X-RateLimit-Reset";
  public static final String RETRY_AFTER = "Retry-After";

  /** One header of an answer. */
  public record Header(String name, String value) {}

  /** The families of headers, for a surface that lets its operator switch some off. */
  public enum Family {
    /** {@code RateLimit-Policy} and {@code RateLimit}. */
    RATELIMIT,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    X_RATELIMIT,
    /** {@code Retry-After}, on a denial. */
    RETRY_AFTER;

    /** Every family: what the REST API and the HTTP gates write. */
    public static final Set<Family> ALL = Set.copyOf(EnumSet.allOf(Family.class));
  }

  /**
   * One limit as {@code RateLimit-Policy} lists it.
   *
   * @param name any text; written escaped
   * @param quota permits per window, {@link Limit#capacity()}
   * @param windowNanos the window
   */
  public record QuotaPolicy(String name, long quota, long windowNanos) {}

  private RateLimitHeaders() {}

  /**
   * Every header for {@code decision} under the policy named {@code label} (a rule name, or {@code
   * ~inline}), in the order of the class comment. Without {@code policy} only {@code Retry-After}.
   */
  public static List<Header> of(String label, @Nullable Policy policy, Decision decision) {
    return of(policy == null ? null : quotaPolicies(label, policy), decision, Family.ALL);
  }

  /**
   * The headers of {@code families} for {@code decision}, reporting on {@code
   * quotas.get(decision.bindingLimitIndex())}; without {@code quotas} only {@code Retry-After}.
   */
  public static List<Header> of(
      @Nullable List<QuotaPolicy> quotas, Decision decision, Set<Family> families) {
    List<Header> headers = new ArrayList<>(6);
    if (quotas != null && !quotas.isEmpty() && decision.decidedBy().reportsCounts()) {
      int index = decision.bindingLimitIndex();
      // A rule changed between the decision and reading it may have fewer limits now.
      QuotaPolicy binding = quotas.get(index < quotas.size() ? index : 0);
      long resetSeconds = decision.bindingResetAfterSeconds();
      if (families.contains(Family.RATELIMIT)) {
        StringBuilder items = new StringBuilder();
        for (QuotaPolicy quota : quotas) {
          items.append(items.isEmpty() ? "" : ", ").append(structuredString(quota.name()));
          items.append(";q=").append(quota.quota());
          items.append(";w=").append(Math.max(1, ceilSeconds(quota.windowNanos())));
        }
        headers.add(new Header(RATE_LIMIT_POLICY, items.toString()));
        headers.add(
            new Header(
                RATE_LIMIT,
                structuredString(binding.name())
                    + ";r="
                    + decision.remaining()
                    + ";t="
                    + resetSeconds));
      }
      if (families.contains(Family.X_RATELIMIT)) {
        headers.add(new Header(X_RATE_LIMIT_LIMIT, Long.toString(decision.limit())));
        headers.add(new Header(X_RATE_LIMIT_REMAINING, Long.toString(decision.remaining())));
        headers.add(new Header(X_RATE_LIMIT_RESET, Long.toString(resetSeconds)));
      }
    }
    if (!decision.allowed() && families.contains(Family.RETRY_AFTER)) {
      headers.add(new Header(RETRY_AFTER, Long.toString(retryAfterSeconds(decision))));
    }
    return headers;
  }

  /**
   * {@code Retry-After} of a denial: its retry-after in whole seconds rounded up, at least 1 (a
   * client told 0 would retry at once, into the same denial).
   */
  public static long retryAfterSeconds(Decision decision) {
    return Math.max(1, decision.retryAfterSeconds());
  }

  /**
   * The limits of {@code policy} as {@code RateLimit-Policy} names them: {@code label} for a policy
   * of one limit; {@code label-window} per limit for several, {@code label-window-i} (i counted
   * from 1) where an earlier limit has that window.
   */
  public static List<QuotaPolicy> quotaPolicies(String label, Policy policy) {
    List<Limit> limits = policy.limits();
    if (limits.size() == 1) {
      Limit only = limits.get(0);
      return List.of(new QuotaPolicy(label, only.capacity(), only.windowNanos()));
    }
    List<QuotaPolicy> quotas = new ArrayList<>(limits.size());
    List<String> names = new ArrayList<>(limits.size());
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      String name = label + "-" + Durations.format(limit.window());
      name = names.contains(name) ? name + "-" + (i + 1) : name;
      names.add(name);
      quotas.add(new QuotaPolicy(name, limit.capacity(), limit.windowNanos()));
    }
    return quotas;
  }

  /**
   * {@code text} as a Structured Field string (RFC 8941): quoted, with {@code "} and {@code \}
   * escaped; characters it cannot hold (outside printable ASCII) become {@code ?}.
   */
  static String structuredString(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append('?');
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static long ceilSeconds(long nanos) {
    return -Math.floorDiv(-nanos, 1_000_000_000L);
  }
}
