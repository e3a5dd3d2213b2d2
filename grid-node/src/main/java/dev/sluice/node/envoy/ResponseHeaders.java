package dev.sluice.node.envoy;

import dev.sluice.core.Decision;
import dev.sluice.core.headers.RateLimitHeaders;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import java.time.Duration;
import java.util.ArrayList;
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
 * name} in the file, else the domain and the matched path. The headers are the ones every Sluice
 * surface writes ({@link RateLimitHeaders}: the same rounding, every delay up to whole seconds so
 * that a client that waits it out succeeds, a sub-second window {@code w=1}, names escaped as
 * Structured Field strings); this class only chooses the families the operator switched on and
 * turns them into Envoy's header values.
 *
 * <p>Envoy adds these headers to the response it sends downstream, allowed or not. The peer adds
 * none by default and never {@code Retry-After}; Envoy's own {@code enable_x_ratelimit_headers}
 * computes the {@code X-RateLimit-*} ones itself, so leave {@code x-ratelimit} off if that is on.
 */
final class ResponseHeaders {
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

  private final Set<Family> families;

  ResponseHeaders(Set<Family> families) {
    this.families = Set.copyOf(families);
  }

  /**
   * The headers for an answer.
   *
   * @param binding the limit to report on, or null when no limit applied
   * @param overLimit whether the answer is OVER_LIMIT
   * @param retryAfterNanos when over: the delay after which the request would be allowed
   */
  List<HeaderValue> headers(@Nullable Binding binding, boolean overLimit, long retryAfterNanos) {
    long limit = binding == null ? 0 : binding.limit();
    long remaining = binding == null ? 0 : binding.remaining();
    long resetAfterNanos = binding == null ? 0 : binding.resetAfterNanos();
    Decision answer =
        overLimit
            ? Decision.deny(limit, remaining, retryAfterNanos, resetAfterNanos)
            : Decision.allow(limit, remaining, resetAfterNanos);
    List<RateLimitHeaders.QuotaPolicy> quotas =
        binding == null
            ? null
            : List.of(
                new RateLimitHeaders.QuotaPolicy(
                    binding.name(), binding.limit(), binding.window().toNanos()));
    List<HeaderValue> headers = new ArrayList<>(6);
    for (RateLimitHeaders.Header header : RateLimitHeaders.of(quotas, answer, families)) {
      headers.add(HeaderValue.newBuilder().setKey(header.name()).setValue(header.value()).build());
    }
    return headers;
  }
}
