package dev.sluice.spring.web;

import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.SluiceWebFilter;
import dev.sluice.spring.GateProperties.Position;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The configured gates at one {@link Position} in a WebFlux application: each gate that matches the
 * request is the client SDK's {@link SluiceWebFilter} (nothing waits on the event loop), chained in
 * the order the gates are listed.
 */
public final class ReactiveGatesFilter implements WebFilter, Ordered {
  private final ConfiguredGates gates;
  private final Position position;

  public ReactiveGatesFilter(ConfiguredGates gates, Position position) {
    this.gates = gates;
    this.position = position;
  }

  @Override
  public int getOrder() {
    return ConfiguredGates.order(position);
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    String path = exchange.getRequest().getPath().pathWithinApplication().value();
    List<RateLimitGate> matched =
        gates.matching(position, exchange.getRequest().getMethod().name(), path);
    return through(matched, 0, exchange, chain);
  }

  private static Mono<Void> through(
      List<RateLimitGate> matched, int index, ServerWebExchange exchange, WebFilterChain chain) {
    if (index == matched.size()) {
      return chain.filter(exchange);
    }
    return new SluiceWebFilter(matched.get(index))
        .filter(exchange, next -> through(matched, index + 1, next, chain));
  }
}
