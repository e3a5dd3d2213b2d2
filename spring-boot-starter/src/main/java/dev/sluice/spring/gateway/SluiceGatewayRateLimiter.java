package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.Admission;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.core.Decision;
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
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
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
 * <p>Each route's decision is the one {@link RateLimitGate}'s, through its non-blocking entry, with
 * the answers a gate gives where the filter lets it: an admitted request gets the rate-limit
 * headers every Sluice surface writes; a denied one gets them with {@code Retry-After} and the
 * filter's {@code status-code} (429). When the grid cannot be reached the rule's failure policy
 * answers: fail-open admits, fail-closed denies with {@code Retry-After} and 503, as a gate does
 * (Spring Cloud Gateway's Redis limiter lets everything through instead). The filter writes no
 * body, so none of these has the gate's JSON. A shadow-banned request goes on to the upstream
 * without headers, the exchange marked ({@code SluiceWebFilter.shadowBanned(exchange)} in a later
 * filter). Under a concurrency rule the permit is held until the exchange ends. The last three need
 * {@link SluiceGatewayExchangeFilter}, which the starter defines beside this limiter.
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
    return Mono.deferContextual(
        context ->
            Mono.fromCompletionStage(() -> gate.enterAsync(new KeyedRequest(id, cost)))
                .map(
                    admission ->
                        response(
                            routeId,
                            SluiceGatewayExchangeFilter.exchange(context).orElse(null),
                            admission)));
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

  /**
   * The filter's answer for {@code admission}, and what the exchange needs beyond it: a permit held
   * until the exchange ends, the gate's own status for an answer that is not a limit's denial, the
   * shadow-ban mark.
   */
  private static Response response(
      String routeId, @Nullable ServerWebExchange exchange, Admission admission) {
    if (exchange == null) {
      if (admission.holdsPermit()) {
        admission.release();
        throw new IllegalStateException(
            "route "
                + routeId
                + ": a concurrency rule's permit is given back when the exchange ends, which"
                + " needs the SluiceGatewayExchangeFilter web filter (the starter defines it)");
      }
    } else if (admission.holdsPermit()) {
      SluiceGatewayExchangeFilter.hold(exchange, admission);
    } else if (!admission.proceeds() && !limitDenied(admission)) {
      // The filter answers its status-code (429) for every denial; a fail-closed denial answers
      // the gate's 503, a key no runtime can hold 400, set as the filter commits its answer.
      HttpStatusCode status = HttpStatusCode.valueOf(admission.status());
      ServerHttpResponse answer = exchange.getResponse();
      answer.beforeCommit(() -> Mono.fromRunnable(() -> answer.setStatusCode(status)));
    } else if (admission.shadowBanned()) {
      exchange.getAttributes().put(RateLimitGate.SHADOW_BANNED_ATTRIBUTE, Boolean.TRUE);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : admission.headers()) {
      headers.put(header.name(), header.value());
    }
    return new Response(admission.proceeds(), headers);
  }

  /** Whether a limit denied (the filter's status-code answers), not the failure policy or a key. */
  private static boolean limitDenied(Admission admission) {
    Decision decision = admission.decision();
    return decision != null && decision.decidedBy() != Decision.DecidedBy.FAIL_CLOSED;
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
