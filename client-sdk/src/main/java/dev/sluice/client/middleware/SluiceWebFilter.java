package dev.sluice.client.middleware;

import dev.sluice.core.headers.RateLimitHeaders.Header;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A Spring WebFlux filter over a {@link RateLimitGate}, through its non-blocking entry ({@link
 * RateLimitGate#enterAsync}): nothing here waits on the event loop, a gate's wait included. A
 * request that does not proceed gets the gate's answer and the chain is not called; one that
 * proceeds gets the headers and the rest of the chain, marked when shadow-banned ({@link
 * #shadowBanned}). A concurrency rule's permit is given back when the chain completes, fails or is
 * cancelled (the client went away).
 *
 * <p>Register it as a {@code WebFilter} bean, or in {@code WebHttpHandlerBuilder.filters(...)}: a
 * filter made with {@link #SluiceWebFilter(RateLimitGate)} limits every request it sees, one made
 * with {@link #forPaths} only the requests whose path matches one of its patterns (Spring's {@code
 * PathPattern} syntax: {@code /login}, {@code /api/**}).
 */
public final class SluiceWebFilter implements WebFilter {
  private final RateLimitGate gate;
  private final List<PathPattern> paths;

  /** A filter that limits every request. */
  public SluiceWebFilter(RateLimitGate gate) {
    this(gate, List.of());
  }

  private SluiceWebFilter(RateLimitGate gate, List<PathPattern> paths) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.paths = paths;
  }

  /** A filter that limits only the requests whose path matches one of {@code patterns}. */
  public static SluiceWebFilter forPaths(RateLimitGate gate, String... patterns) {
    if (patterns.length == 0) {
      throw new IllegalArgumentException("patterns: give at least one path pattern");
    }
    List<PathPattern> parsed = new ArrayList<>(patterns.length);
    for (String pattern : patterns) {
      parsed.add(PathPatternParser.defaultInstance.parse(pattern));
    }
    return new SluiceWebFilter(gate, List.copyOf(parsed));
  }

  /**
   * Whether a gate let the request of {@code exchange} through under a shadow ban: answer it as a
   * success and skip the side effect (the exchange attribute {@link
   * RateLimitGate#SHADOW_BANNED_ATTRIBUTE}).
   */
  public static boolean shadowBanned(ServerWebExchange exchange) {
    return Boolean.TRUE.equals(exchange.getAttribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE));
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    if (!paths.isEmpty()
        && paths.stream()
            .noneMatch(p -> p.matches(exchange.getRequest().getPath().pathWithinApplication()))) {
      return chain.filter(exchange);
    }
    return exchange
        .getPrincipal()
        .map(Optional::of)
        .defaultIfEmpty(Optional.<Principal>empty())
        .flatMap(principal -> enter(exchange, principal.orElse(null), chain));
  }

  private Mono<Void> enter(
      ServerWebExchange exchange, @Nullable Principal principal, WebFilterChain chain) {
    CompletableFuture<Admission> entered;
    try {
      entered = gate.enterAsync(new WebFluxGateRequest(exchange, principal)).toCompletableFuture();
    } catch (RuntimeException e) {
      return Mono.error(e);
    }
    return Mono.fromFuture(entered, true)
        .flatMap(admission -> answer(exchange, chain, admission))
        // However the exchange ends, once the admission is there its permit goes back: off the
        // event loop, since giving it back is a call to the grid.
        .doFinally(
            signal ->
                entered.thenAccept(
                    admission -> {
                      if (admission.holdsPermit()) {
                        Schedulers.boundedElastic().schedule(admission::release);
                      }
                    }));
  }

  private static Mono<Void> answer(
      ServerWebExchange exchange, WebFilterChain chain, Admission admission) {
    ServerHttpResponse response = exchange.getResponse();
    for (Header header : admission.headers()) {
      response.getHeaders().set(header.name(), header.value());
    }
    if (!admission.proceeds()) {
      response.setStatusCode(HttpStatusCode.valueOf(admission.status()));
      response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
      byte[] body = Objects.requireNonNull(admission.body()).getBytes(StandardCharsets.UTF_8);
      DataBuffer buffer = response.bufferFactory().wrap(body);
      return response.writeWith(Mono.just(buffer));
    }
    if (admission.shadowBanned()) {
      exchange.getAttributes().put(RateLimitGate.SHADOW_BANNED_ATTRIBUTE, Boolean.TRUE);
    }
    return chain.filter(exchange);
  }
}
