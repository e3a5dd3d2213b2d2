package dev.sluice.node.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The headers the answer asks Envoy to add to its response ({@code response_headers_to_add}), the
 * same as the REST API's (docs/rest-api.md), about the one limit that binds the request:
 *
 * <pre>
 * RateLimit-Policy: "edge.remote_address";q=100;w=60    quota q per window w seconds
 * RateLimit: "edge.remote_address";r=0;t=42             r remaining, t seconds until whole again
 * X-RateLimit-Limit: 100                                (x-ratelimit, off by default)
 * X-RateLimit-Remaining: 0
 * X-RateLimit-Reset: 42
 * Retry-After: 3                                        only when the answer is OVER_LIMIT
 * </pre>
 *
 * The binding limit is the one that made the answer OVER_LIMIT (the one to wait longest for, if
 * several did), else the one with the fewest requests remaining. Its name is the limit's {@code
 * name} in the file, else the domain and the matched path. Every delay is rounded up to whole
 * seconds, so that a client that waits it out succeeds; a sub-second window is {@code w=1}.
 *
 * <p>Envoy adds these headers to the response it sends downstream, allowed or not. The peer adds
 * none by default and never {@code Retry-After}; Envoy's own {@code enable_x_ratelimit_headers}
 * computes the {@code X-RateLimit-*} ones itself, so leave {@code x-ratelimit} off if that is on.
 */
final class ResponseHeaders {
  static final String POLICY = "RateLimit-Policy";
  static final String RATE_LIMIT = "RateLimit";
  static final String LIMIT = "X-RateLimit-Limit";
  static final String REMAINING = "X-RateLimit-Remaining";
  static final String RESET = "X-RateLimit-Reset";
  static final String RETRY_AFTER = "Retry-After";

  /**
   * The limit the headers report on.
   *
   * @param name the policy name, any text (escaped for the header)
   * @param limit the quota per window
   * @param window the window
   * @param remaining what is left
   * @param resetAfterNanos until the limit is whole again
   */
  record Binding(String name, long limit, Duration window, long remaining, long resetAfterNanos) {}

  private final Set<EnvoyHeader> families;

  ResponseHeaders(Set<EnvoyHeader> families) {
    this.families = families.isEmpty() ? Set.of() : EnumSet.copyOf(families);
  }

  /**
   * The headers for an answer.
   *
   * @param binding the limit to report on, or null when no limit applied
   * @param overLimit whether the answer is OVER_LIMIT
   * @param retryAfterNanos when over: the delay after which the request would be allowed
   */
  List<HeaderValue> headers(@Nullable Binding binding, boolean overLimit, long retryAfterNanos) {
    List<HeaderValue> headers = new ArrayList<>(6);
    if (binding != null) {
      long resetSeconds = ceilSeconds(binding.resetAfterNanos());
      if (families.contains(EnvoyHeader.RATELIMIT)) {
        String name = structuredString(binding.name());
        long windowSeconds = Math.max(1, ceilSeconds(binding.window().toNanos()));
        headers.add(header(POLICY, name + ";q=" + binding.limit() + ";w=" + windowSeconds));
        headers.add(header(RATE_LIMIT, name + ";r=" + binding.remaining() + ";t=" + resetSeconds));
      }
      if (families.contains(EnvoyHeader.X_RATELIMIT)) {
        headers.add(header(LIMIT, Long.toString(binding.limit())));
        headers.add(header(REMAINING, Long.toString(binding.remaining())));
        headers.add(header(RESET, Long.toString(resetSeconds)));
      }
    }
    if (overLimit && families.contains(EnvoyHeader.RETRY_AFTER)) {
      headers.add(header(RETRY_AFTER, Long.toString(Math.max(1, ceilSeconds(retryAfterNanos)))));
    }
    return headers;
  }

  private static HeaderValue header(String key, String value) {
    return HeaderValue.newBuilder().setKey(key).setValue(value).build();
  }

  static long ceilSeconds(long nanos) {
    return -Math.floorDiv(-nanos, 1_000_000_000L);
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
}
