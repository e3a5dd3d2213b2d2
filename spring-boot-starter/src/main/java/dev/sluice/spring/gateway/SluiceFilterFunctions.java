package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.Admission;
import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.ServletGateRequest;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Sluice as a Spring Cloud Gateway Server MVC filter: the one {@link RateLimitGate} over the
 * route's servlet request, with the same answers as every other gate.
 *
 * <pre>{@code
 * route("hello")
 *     .GET("/hello/**", http())
 *     .before(uri("http://upstream:8080"))
 *     .filter(SluiceFilterFunctions.gate(RateLimitGate.builder(sluice).rule("hello").build()))
 *     .build();
 * }</pre>
 *
 * or, in the gateway's YAML, {@code filters: [SluiceRateLimit=hello]} (keyed by the client's
 * address, with the application's {@code RateLimiter} bean).
 */
public final class SluiceFilterFunctions {
  private static final Map<String, RateLimitGate> BY_RULE = new ConcurrentHashMap<>();

  private SluiceFilterFunctions() {}

  /** A filter that lets a request on to the route only if {@code gate} lets it. */
  public static HandlerFilterFunction<ServerResponse, ServerResponse> gate(RateLimitGate gate) {
    return rateLimit(request -> gate);
  }

  /**
   * A filter limiting by {@code rule}, keyed by the client's address, over the application's {@link
   * RateLimiter} bean: what {@code SluiceRateLimit=rule} in the gateway's YAML makes.
   */
  public static HandlerFilterFunction<ServerResponse, ServerResponse> sluiceRateLimit(String rule) {
    return rateLimit(
        request ->
            BY_RULE.computeIfAbsent(
                rule,
                name ->
                    RateLimitGate.builder(
                            MvcUtils.getApplicationContext(request).getBean(RateLimiter.class))
                        .rule(name)
                        .key(KeyExtractor.clientIp())
                        .build()));
  }

  private static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(
      Function<org.springframework.web.servlet.function.ServerRequest, RateLimitGate> gateOf) {
    return (request, next) -> {
      HttpServletRequest servlet = request.servletRequest();
      Admission admission = gateOf.apply(request).enter(new ServletGateRequest(servlet));
      if (!admission.proceeds()) {
        return ServerResponse.status(admission.status())
            .headers(headers -> admission.headers().forEach(h -> headers.set(h.name(), h.value())))
            .contentType(MediaType.APPLICATION_JSON)
            .body(Objects.requireNonNull(admission.body()));
      }
      if (admission.shadowBanned()) {
        servlet.setAttribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE, Boolean.TRUE);
      }
      try {
        ServerResponse response = next.handle(request);
        for (Header header : admission.headers()) {
          response.headers().set(header.name(), header.value());
        }
        return response;
      } finally {
        admission.release();
      }
    };
  }

  /** Makes {@code SluiceRateLimit} known to the gateway's YAML routes. */
  public static class FilterSupplier extends SimpleFilterSupplier {
    public FilterSupplier() {
      super(SluiceFilterFunctions.class);
    }
  }
}
