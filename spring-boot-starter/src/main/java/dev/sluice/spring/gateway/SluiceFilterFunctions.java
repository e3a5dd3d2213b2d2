package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.Admission;
import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.ServletGateRequest;
import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import dev.sluice.spring.SluiceProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
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
 * address, with the application's {@code RateLimiter} bean). A concurrency rule's permit is given
 * back when the route's handler returns or throws.
 */
public final class SluiceFilterFunctions {

  private SluiceFilterFunctions() {}

  /** A filter that lets a request on to the route only if {@code gate} lets it. */
  public static HandlerFilterFunction<ServerResponse, ServerResponse> gate(RateLimitGate gate) {
    return rateLimit(request -> gate);
  }

  /**
   * A filter limiting by {@code rule}, keyed by the client's address (through {@code
   * sluice.trusted-proxies}), over the application's {@link RateLimiter} bean: what {@code
   * SluiceRateLimit=rule} in the gateway's YAML makes. The route's gate is built at its first
   * request, from the application context that request runs in. ({@link Shortcut}: the YAML's
   * {@code SluiceRateLimit=proxied} is this method with {@code proxied} for {@code rule}.)
   */
  @Shortcut
  public static HandlerFilterFunction<ServerResponse, ServerResponse> sluiceRateLimit(String rule) {
    AtomicReference<@Nullable RateLimitGate> gate = new AtomicReference<>();
    return rateLimit(
        request ->
            Objects.requireNonNull(
                gate.updateAndGet(built -> built != null ? built : gateOf(rule, request))));
  }

  private static RateLimitGate gateOf(String rule, ServerRequest request) {
    ApplicationContext context = MvcUtils.getApplicationContext(request);
    SluiceProperties properties = context.getBeanProvider(SluiceProperties.class).getIfAvailable();
    TrustedProxies proxies =
        properties == null ? TrustedProxies.none() : TrustedProxies.of(properties.trustedProxies());
    return RateLimitGate.builder(context.getBean(RateLimiter.class))
        .rule(rule)
        .key(KeyExtractor.clientIp(proxies))
        .build();
  }

  private static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(
      Function<ServerRequest, RateLimitGate> gateOf) {
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
