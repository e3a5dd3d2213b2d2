package dev.sluice.rest;

import dev.sluice.core.Decision;
import io.javalin.http.Context;
import java.time.Duration;

/**
 * The rate-limit headers of every check answer (DESIGN §4).
 *
 * <p>The IETF httpapi draft ("RateLimit header fields for HTTP") names a policy and reports on it
 * with two Structured Fields:
 *
 * <pre>
 * RateLimit-Policy: "login";q=5;w=60     quota q per window w seconds
 * RateLimit: "login";r=2;t=38            r remaining, t seconds until the quota is whole again
 * </pre>
 *
 * Next to them the de-facto headers most clients already read: {@code X-RateLimit-Limit}, {@code
 * X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (seconds from now, like {@code t}), and on a
 * 429 {@code Retry-After} in seconds.
 *
 * <p>Rounding: every delay is rounded <em>up</em> to whole seconds ({@link
 * Decision#retryAfterSeconds()}, {@link Decision#resetAfterSeconds()}), so a client that waits the
 * advertised time succeeds; a sub-second window is advertised as {@code w=1}, since the draft only
 * has whole seconds. Policy names are rule names ({@code [A-Za-z0-9_.-]}), or {@code "~inline"} for
 * an inline policy; none needs escaping inside a Structured Field string.
 */
final class RateLimitHeaders {
  static final String POLICY = "RateLimit-Policy";
  static final String RATE_LIMIT = "RateLimit";
  static final String LIMIT = "X-RateLimit-Limit";
  static final String REMAINING = "X-RateLimit-Remaining";
  static final String RESET = "X-RateLimit-Reset";
  static final String RETRY_AFTER = "Retry-After";

  private RateLimitHeaders() {}

  static void apply(Context ctx, String policyName, Duration window, Decision decision) {
    long windowSeconds = Math.max(1, ceilSeconds(window));
    long resetSeconds = decision.resetAfterSeconds();
    ctx.header(POLICY, '"' + policyName + "\";q=" + decision.limit() + ";w=" + windowSeconds);
    ctx.header(
        RATE_LIMIT, '"' + policyName + "\";r=" + decision.remaining() + ";t=" + resetSeconds);
    ctx.header(LIMIT, Long.toString(decision.limit()));
    ctx.header(REMAINING, Long.toString(decision.remaining()));
    ctx.header(RESET, Long.toString(resetSeconds));
    if (!decision.allowed()) {
      ctx.header(RETRY_AFTER, Long.toString(Math.max(1, decision.retryAfterSeconds())));
    }
  }

  private static long ceilSeconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }
}
