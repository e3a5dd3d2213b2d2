package dev.sluice.spring;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A Spring Cloud Gateway (WebFlux) route limited by the starter's {@code sluiceRateLimiter}, keyed
 * by the client's address, as the test's properties: what docs/spring.md's route YAML says.
 */
final class GatewayTestRoutes {
  private GatewayTestRoutes() {}

  /** Route {@code index}: requests to {@code /<id>/**} go to {@code upstream}, limited by rule. */
  static void rateLimited(
      DynamicPropertyRegistry registry, int index, String id, String rule, StubUpstream upstream) {
    String route = "spring.cloud.gateway.server.webflux.routes[" + index + "].";
    registry.add(route + "id", () -> id);
    registry.add(route + "uri", upstream::uri);
    registry.add(route + "predicates[0]", () -> "Path=/" + id + "/**");
    registry.add(route + "filters[0].name", () -> "RequestRateLimiter");
    registry.add(route + "filters[0].args.rate-limiter", () -> "#{@sluiceRateLimiter}");
    registry.add(route + "filters[0].args.key-resolver", () -> "#{@sluiceClientIpKeyResolver}");
    registry.add(route + "filters[0].args.sluice-rate-limiter.rule", () -> rule);
  }
}
