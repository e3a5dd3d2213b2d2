package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.WebFluxGateRequest;
import java.security.Principal;
import java.util.Optional;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@link KeyResolver} over one of the client SDK's {@link KeyExtractor}s, so
 * that a route is keyed exactly as a gate would key the request: {@code new
 * GateKeyResolver(KeyExtractor.header("X-Api-Key"))}. The starter defines {@code
 * sluiceClientIpKeyResolver}, the client's address through {@code sluice.trusted-proxies}. No key
 * is an empty answer: the filter then denies the request (its {@code deny-empty-key}).
 */
public final class GateKeyResolver implements KeyResolver {
  private final KeyExtractor extractor;

  public GateKeyResolver(KeyExtractor extractor) {
    this.extractor = extractor;
  }

  @Override
  public Mono<String> resolve(ServerWebExchange exchange) {
    return exchange
        .getPrincipal()
        .map(Optional::of)
        .defaultIfEmpty(Optional.<Principal>empty())
        .flatMap(
            principal ->
                Mono.justOrEmpty(
                    extractor.keyOf(new WebFluxGateRequest(exchange, principal.orElse(null)))));
  }
}
