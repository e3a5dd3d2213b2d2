package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.Admission;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * The step after the exchange that Spring Cloud Gateway's rate limiter API lacks. The gateway's
 * {@code RequestRateLimiter} filter asks {@code isAllowed(routeId, key)} and then goes on to the
 * upstream or answers its own status: the limiter sees neither the exchange nor its end, so a
 * concurrency rule's permit could never be given back, and every denial, a fail-closed one too,
 * could only take the filter's one status.
 *
 * <p>This web filter runs first. It puts the exchange into the Reactor context of everything after
 * it, where {@link SluiceGatewayRateLimiter} finds it ({@link #exchange}), and when the exchange
 * ends (the upstream's answer written, failed, or the client gone) it gives back the permits the
 * limiter took for it ({@link #hold}), off the event loop, since that is a call to the grid.
 */
public final class SluiceGatewayExchangeFilter implements WebFilter, Ordered {
  private static final String HELD = SluiceGatewayExchangeFilter.class.getName() + ".held";
  private static final Class<?> CONTEXT_KEY = SluiceGatewayExchangeFilter.class;

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return chain
        .filter(exchange)
        .doFinally(signal -> releaseHeld(exchange))
        .contextWrite(context -> context.put(CONTEXT_KEY, exchange));
  }

  /** The exchange being handled, as this filter put it into {@code context}; empty without it. */
  static Optional<ServerWebExchange> exchange(ContextView context) {
    return context.getOrEmpty(CONTEXT_KEY);
  }

  /** Keeps {@code admission}'s permit until {@code exchange} ends. */
  static void hold(ServerWebExchange exchange, Admission admission) {
    held(exchange).add(admission);
  }

  @SuppressWarnings("unchecked")
  private static List<Admission> held(ServerWebExchange exchange) {
    return (List<Admission>)
        exchange.getAttributes().computeIfAbsent(HELD, name -> new CopyOnWriteArrayList<>());
  }

  private static void releaseHeld(ServerWebExchange exchange) {
    Object held = exchange.getAttributes().get(HELD);
    if (held != null) {
      for (Admission admission : held(exchange)) {
        Schedulers.boundedElastic().schedule(admission::release);
      }
    }
  }
}
