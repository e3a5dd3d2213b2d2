package dev.sluice.rest;

import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit headers of every check answer (docs/rest-api.md).
 *
 * <p>The IETF httpapi draft ("RateLimit header fields for HTTP") names each policy and reports on
 * the one that binds, with two Structured Fields:
 *
 * <pre>
 * RateLimit-Policy: "login";q=5;w=60     quota q per window w seconds
 * RateLimit: "login";r=2;t=38            r remaining, t seconds until the quota is whole again
 * </pre>
 *
 * A rule of several limits lists each in {@code RateLimit-Policy}, named after the rule and the
 * window ({@code "api-1s";q=10;w=1, "api-1h";q=1000;w=3600}), and {@code RateLimit} reports the one
 * that binds: the limit whose quota the decision reports (the first such, should two have the same
 * quota).
 *
 * <p>Next to them the de-facto headers most clients already read: {@code X-RateLimit-Limit}, {@code
 * X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (seconds from now, like {@code t}), and on a
 * 429 {@code Retry-After} in seconds.
 *
 * <p>Rounding: every delay is rounded <em>up</em> to whole seconds ({@link
 * Decision#retryAfterSeconds()}, {@link Decision#resetAfterSeconds()}), so a client that waits the
 * advertised time succeeds; a sub-second window is advertised as {@code w=1}, since the draft only
 * has whole seconds. Policy names are rule names ({@code [A-Za-z0-9_.-]}), or {@code "~inline"} for
 * an inline policy, plus a window such as {@code 250ms}; none needs escaping inside a Structured
 * Field string.
 */
final class RateLimitHeaders {
  static final String POLICY = "RateLimit-Policy";
  static final String RATE_LIMIT = "RateLimit";
  static final String LIMIT = "X-RateLimit-Limit";
  static final String REMAINING = "X-RateLimit-Remaining";
  static final String RESET = "X-RateLimit-Reset";
  static final String RETRY_AFTER = "Retry-After";

  private RateLimitHeaders() {}

  static void apply(Context ctx, String label, @Nullable Policy policy, Decision decision) {
    if (policy == null) {
      // A rule whose limit is unknown here (decided by the failure policy): no quota to state.
      if (!decision.allowed()) {
        ctx.header(RETRY_AFTER, Long.toString(Math.max(1, decision.retryAfterSeconds())));
      }
      return;
    }
    long resetSeconds = decision.resetAfterSeconds();
    String binding;
    if (policy.isSingle()) {
      binding = label;
      ctx.header(POLICY, item(label, decision.limit(), policy.only().window()));
    } else {
      List<String> names = names(label, policy);
      StringBuilder items = new StringBuilder();
      binding = null;
      for (int i = 0; i < names.size(); i++) {
        Limit limit = policy.limits().get(i);
        long quota = LimiterAlgorithm.of(limit, policy.countDenied()).capacity();
        items.append(i == 0 ? "" : ", ").append(item(names.get(i), quota, limit.window()));
        if (binding == null && quota == decision.limit()) {
          binding = names.get(i);
        }
      }
      ctx.header(POLICY, items.toString());
      binding = binding != null ? binding : names.get(0);
    }
    ctx.header(RATE_LIMIT, '"' + binding + "\";r=" + decision.remaining() + ";t=" + resetSeconds);
    ctx.header(LIMIT, Long.toString(decision.limit()));
    ctx.header(REMAINING, Long.toString(decision.remaining()));
    ctx.header(RESET, Long.toString(resetSeconds));
    if (!decision.allowed()) {
      ctx.header(RETRY_AFTER, Long.toString(Math.max(1, decision.retryAfterSeconds())));
    }
  }

  private static String item(String name, long quota, Duration window) {
    return '"' + name + "\";q=" + quota + ";w=" + Math.max(1, ceilSeconds(window));
  }

  /** {@code label-window} per limit; {@code label-window-i} where two share a window. */
  private static List<String> names(String label, Policy policy) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < policy.limits().size(); i++) {
      String name = label + "-" + Durations.format(policy.limits().get(i).window());
      names.add(names.contains(name) ? name + "-" + (i + 1) : name);
    }
    return names;
  }

  private static long ceilSeconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }
}
