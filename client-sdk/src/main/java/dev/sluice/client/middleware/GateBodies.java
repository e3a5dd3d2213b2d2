package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import dev.sluice.core.headers.RateLimitHeaders;
import org.jspecify.annotations.Nullable;

/**
 * The JSON bodies a gate answers with instead of calling the handler, in the REST API's error shape
 * ({@code {"error": code, "message": text, ...}}):
 *
 * <pre>
 * 429 {"error":"rate_limited","message":"rate limit exceeded for 'login'; retry after 51 s",
 *      "rule":"login","limit":5,"remaining":0,"retryAfterMs":50001,"resetAfterMs":98001,
 *      "decidedBy":"LIMITER"}
 * 503 {"error":"unavailable","message":"the rate limiter cannot be reached and 'login' fails
 *      closed; retry after 2 s","rule":"login","retryAfterMs":1500,"decidedBy":"FAIL_CLOSED"}
 * 400 {"error":"invalid_key","message":"key: must be at most 512 bytes of UTF-8, was 600"}
 * 400 {"error":"invalid_cost","message":"cost: must be at least 1, was 0"}
 * </pre>
 *
 * {@code rule} is null for an inline policy. A failure policy's denial knows no count, so it states
 * none.
 */
final class GateBodies {
  private GateBodies() {}

  /** A denial by the limit. */
  static String rateLimited(@Nullable String rule, Decision decision) {
    return "{\"error\":\"rate_limited\",\"message\":\"rate limit exceeded"
        + (rule == null ? "" : " for '" + rule + "'")
        + "; retry after "
        + RateLimitHeaders.retryAfterSeconds(decision)
        + " s\",\"rule\":"
        + string(rule)
        + ",\"limit\":"
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

  /** A denial by the failure policy: the grid could not be asked, and the rule fails closed. */
  static String unavailable(@Nullable String rule, Decision decision) {
    return "{\"error\":\"unavailable\",\"message\":\"the rate limiter cannot be reached and "
        + (rule == null ? "the policy" : "'" + rule + "'")
        + " fails closed; retry after "
        + RateLimitHeaders.retryAfterSeconds(decision)
        + " s\",\"rule\":"
        + string(rule)
        + ",\"retryAfterMs\":"
        + decision.retryAfterMillis()
        + ",\"decidedBy\":\""
        + decision.decidedBy().name()
        + "\"}";
  }

  /**
   * A key the limiter cannot take, or a cost below 1: nothing was counted. The error names the
   * field ({@code invalid_key}, {@code invalid_cost}).
   */
  static String invalid(String field, String message) {
    return "{\"error\":\"invalid_" + field + "\",\"message\":" + string(message) + "}";
  }

  /** {@code text} as a JSON string, or {@code null}. */
  private static String string(@Nullable String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
