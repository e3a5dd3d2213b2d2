package dev.sluice.spring;

import dev.sluice.client.middleware.GateRequest;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.core.RateLimiter;
import java.security.Principal;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A "request" whose key and cost were worked out before the gate: a {@code @RateLimited} call (from
 * its arguments) or a Spring Cloud Gateway route (by its {@code KeyResolver}). Through it those go
 * through the one {@link RateLimitGate}, with its decision, headers and answers, instead of a
 * second copy of them. It has no headers, principal or address: the gate reads nothing else.
 *
 * @param key the key; null: not limited
 * @param cost the permits it costs
 */
public record KeyedRequest(@Nullable String key, long cost) implements GateRequest {

  /** A gate builder whose key and cost are a {@code KeyedRequest}'s. */
  public static RateLimitGate.Builder gate(RateLimiter limiter) {
    return RateLimitGate.builder(limiter)
        .key(request -> ((KeyedRequest) request).key())
        .cost(request -> ((KeyedRequest) request).cost());
  }

  @Override
  public String remoteAddress() {
    return "";
  }

  @Override
  public List<String> headers(String name) {
    return List.of();
  }

  @Override
  public @Nullable Principal principal() {
    return null;
  }

  @Override
  public String method() {
    return "";
  }

  @Override
  public String path() {
    return "";
  }

  @Override
  public @Nullable Object attribute(String name) {
    return null;
  }
}
