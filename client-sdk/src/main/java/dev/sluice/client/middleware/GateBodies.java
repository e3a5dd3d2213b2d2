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
    String reason = "rate limit exceeded" + (rule == null ? "" : " for '" + rule + "'");
    return denied("rate_limited", reason, rule, decision, true);
  }

  /** A denial by the failure policy: the grid could not be asked, and the rule fails closed. */
  static String unavailable(@Nullable String rule, Decision decision) {
    String reason =
        "the rate limiter cannot be reached and "
            + (rule == null ? "the policy" : "'" + rule + "'")
            + " fails closed";
    return denied("unavailable", reason, rule, decision, false);
  }

  /** A denial's body: the counts only where the decision knows them ({@code counts}). */
  private static String denied(
      String error, String reason, @Nullable String rule, Decision decision, boolean counts) {
    String message =
        reason + "; retry after " + RateLimitHeaders.retryAfterSeconds(decision) + " s";
    return "{\"error\":\""
        + error
        + "\",\"message\":"
        + string(message)
        + ",\"rule\":"
        + string(rule)
        + (counts
            ? ",\"limit\":" + decision.limit() + ",\"remaining\":" + decision.remaining()
            : "")
        + ",\"retryAfterMs\":"
        + decision.retryAfterMillis()
        + (counts ? ",\"resetAfterMs\":" + decision.resetAfterMillis() : "")
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
