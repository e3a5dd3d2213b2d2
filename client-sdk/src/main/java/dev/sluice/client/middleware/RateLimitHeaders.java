package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The response headers and error body of a rate-limited HTTP answer (docs/rest-api.md), in one
 * place for every middleware (and for any other HTTP surface that wants to answer the same way).
 *
 * <pre>
 *   RateLimit-Policy: "login";q=5;w=60        the policy: quota q per window w seconds
 *   RateLimit: "login";r=0;t=38               remaining r, t seconds until back to full
 *   X-RateLimit-Limit: 5
 *   X-RateLimit-Remaining: 0
 *   X-RateLimit-Reset: 38                     seconds, rounded up
 *   Retry-After: 12                           on a denial only: seconds, rounded up
 * </pre>
 *
 * {@code RateLimit-Policy} and {@code RateLimit} follow the IETF httpapi ratelimit-headers draft's
 * structured-field syntax. Delays round <em>up</em> to whole seconds so that a client that waits
 * {@code Retry-After} seconds succeeds. Decisions made without the limiter ({@code FAIL_OPEN},
 * {@code FAIL_CLOSED}) hold no count from the grid: they carry only {@code Retry-After} on a
 * denial.
 */
public final class RateLimitHeaders {
  public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
  public static final String RATE_LIMIT = "RateLimit";
  public static final String X_RATE_LIMIT_LIMIT = "X-RateLimit-Limit";
  public static final String X_RATE_LIMIT_REMAINING = "X-RateLimit-Remaining";
  public static final String X_RATE_LIMIT_RESET = "X-RateLimit-Reset";
  public static final String RETRY_AFTER = "Retry-After";

  private RateLimitHeaders() {}

  /**
   * The headers for {@code decision} under the rule (or inline policy) called {@code name}, in the
   * order above. {@code policy} gives the window; without it {@code RateLimit-Policy} has no {@code
   * w}.
   */
  public static Map<String, String> of(String name, @Nullable Policy policy, Decision decision) {
    Map<String, String> headers = new LinkedHashMap<>();
    boolean knowsLimit = decision.decidedBy().reportsCounts();
    if (knowsLimit) {
      String item = '"' + name + '"';
      String window = policy == null ? "" : ";w=" + ceilSeconds(policy.windowNanos());
      headers.put(RATE_LIMIT_POLICY, item + ";q=" + decision.limit() + window);
      headers.put(
          RATE_LIMIT, item + ";r=" + decision.remaining() + ";t=" + decision.resetAfterSeconds());
      headers.put(X_RATE_LIMIT_LIMIT, Long.toString(decision.limit()));
      headers.put(X_RATE_LIMIT_REMAINING, Long.toString(decision.remaining()));
      headers.put(X_RATE_LIMIT_RESET, Long.toString(decision.resetAfterSeconds()));
    }
    if (!decision.allowed()) {
      headers.put(RETRY_AFTER, Long.toString(Math.max(1, decision.retryAfterSeconds())));
    }
    return headers;
  }

  /**
   * The JSON body of a 429: {@code {"error": "rate_limited", "message": ..., "rule", "limit",
   * "remaining", "retryAfterMs", "resetAfterMs", "decidedBy"}}. Rule names are {@code
   * [A-Za-z0-9_.-]}, so nothing in it needs escaping.
   */
  public static String errorBody(String name, Decision decision) {
    return "{\"error\":\"rate_limited\",\"message\":\"rate limit exceeded for '"
        + name
        + "'; retry after "
        + Math.max(1, decision.retryAfterSeconds())
        + " s\",\"rule\":\""
        + name
        + "\",\"limit\":"
        + decision.limit()
        + ",\"remaining\":"
        + decision.remaining()
        + ",\"retryAfterMs\":"
        + decision.retryAfterMillis()
        + ",\"resetAfterMs\":"
        + decision.resetAfterMillis()
        + ",\"decidedBy\":\""
        + decision.decidedBy().name()
        + "\"}";
  }

  private static long ceilSeconds(long nanos) {
    return -Math.floorDiv(-nanos, 1_000_000_000L);
  }
}
