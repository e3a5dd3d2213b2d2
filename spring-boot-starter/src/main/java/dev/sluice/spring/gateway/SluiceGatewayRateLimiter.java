package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.Admission;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import dev.sluice.spring.KeyedRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * Sluice as Spring Cloud Gateway's rate limiter (the bean {@code sluiceRateLimiter}), for the
 * {@code RequestRateLimiter} filter, with each route's own rule or inline limit:
 *
 * <pre>
 * spring.cloud.gateway.server.webflux.routes:
 *   - id: hello
 *     uri: http://upstream:8080
 *     predicates: [Path=/hello/**]
 *     filters:
 *       - name: RequestRateLimiter
 *         args:
 *           rate-limiter: "#{@sluiceRateLimiter}"
 *           key-resolver: "#{@sluiceClientIpKeyResolver}"
 *           sluice-rate-limiter.rule: hello        # or .limit: 5 and .window: 1m
 * </pre>
 *
 * <p>Each route's decision is the one {@link RateLimitGate}'s, through its non-blocking entry: a
 * route that admits gets the rate-limit headers every Sluice surface writes; one that denies gets
 * them with {@code Retry-After}, and the filter's status (429). When the grid cannot be reached the
 * rule's failure policy answers: fail-open admits, fail-closed denies with {@code Retry-After}
 * (Spring Cloud Gateway's Redis limiter lets everything through instead). A shadow-banned request
 * is admitted without headers (the filter cannot mark it for the upstream). Concurrency rules are
 * not for this limiter: the filter has no step after the upstream answers to give a permit back.
 */
public class SluiceGatewayRateLimiter extends AbstractRateLimiter<SluiceGatewayRateLimiter.Config> {

  /** The prefix of the route arguments: {@code sluice-rate-limiter.rule}. */
  public static final String CONFIGURATION_PROPERTY_NAME = "sluice-rate-limiter";

  private final RateLimiter limiter;
  private final Map<Config, RateLimitGate> gates = new ConcurrentHashMap<>();

  public SluiceGatewayRateLimiter(RateLimiter limiter, ConfigurationService configuration) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, configuration);
    this.limiter = limiter;
  }

  @Override
  public Mono<Response> isAllowed(String routeId, String id) {
    Config config = getConfig().get(routeId);
    if (config == null) {
      config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
    }
    if (config == null) {
      return Mono.error(
          new IllegalArgumentException(
              "route "
                  + routeId
                  + ": give the RequestRateLimiter filter "
                  + CONFIGURATION_PROPERTY_NAME
                  + ".rule, or .limit and .window"));
    }
    RateLimitGate gate = gates.computeIfAbsent(config, this::gate);
    long cost = config.getCost();
    return Mono.fromCompletionStage(() -> gate.enterAsync(new KeyedRequest(id, cost)))
        .map(SluiceGatewayRateLimiter::response);
  }

  private RateLimitGate gate(Config config) {
    RateLimitGate.Builder builder = KeyedRequest.gate(limiter);
    if (config.getRule() != null) {
      builder.rule(config.getRule());
    } else if (config.getLimit() != null && config.getWindow() != null) {
      builder.policy(Policy.of(config.getLimit(), config.getWindow()));
    } else {
      throw new IllegalArgumentException(
          CONFIGURATION_PROPERTY_NAME + ": give a rule, or a limit and a window");
    }
    return builder.build();
  }

  private static Response response(Admission admission) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : admission.headers()) {
      headers.put(header.name(), header.value());
    }
    return new Response(admission.proceeds(), headers);
  }

  /** One route's arguments, under {@code sluice-rate-limiter.*}. */
  public static class Config {
    private @Nullable String rule;
    private @Nullable Long limit;
    private @Nullable Duration window;
    private long cost = 1;

    /** The rule to limit the route by. */
    public @Nullable String getRule() {
      return rule;
    }

    public Config setRule(@Nullable String rule) {
      this.rule = rule;
      return this;
    }

    /** An inline limit of the route's own: permits per window. */
    public @Nullable Long getLimit() {
      return limit;
    }

    public Config setLimit(@Nullable Long limit) {
      this.limit = limit;
      return this;
    }

    public @Nullable Duration getWindow() {
      return window;
    }

    public Config setWindow(@Nullable Duration window) {
      this.window = window;
      return this;
    }

    /** Permits each request costs. */
    public long getCost() {
      return cost;
    }

    public Config setCost(long cost) {
      this.cost = cost;
      return this;
    }
  }
}
