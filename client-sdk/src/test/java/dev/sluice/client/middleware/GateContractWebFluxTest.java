package dev.sluice.client.middleware;

import dev.sluice.core.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The gate contract through {@link SluiceWebFilter}, on reactor-netty: a real event loop, which the
 * gate must never block (its waits included): its limiters refuse blocking calls there ({@link
 * EventLoopGuard}). The application's own blocking handler ({@code /slots/slow}) runs off the event
 * loop, as a WebFlux application must run it.
 */
class GateContractWebFluxTest extends GateContract {
  private DisposableServer server;

  @Override
  protected int serve(Map<String, RateLimitGate> gates) {
    RouterFunction<ServerResponse> application =
        RouterFunctions.route()
            .GET(
                "/**",
                request ->
                    Mono.fromCallable(
                            () ->
                                Application.handle(
                                    request.path(),
                                    SluiceWebFilter.shadowBanned(request.exchange())))
                        .subscribeOn(Schedulers.boundedElastic())
                        .flatMap(body -> ServerResponse.ok().bodyValue(body)))
            .build();
    List<WebFilter> filters = new ArrayList<>();
    gates.forEach(
        (path, gate) -> {
          // docs/client.md: webflux
          WebFilter filter = SluiceWebFilter.forPaths(gate, path);
          // end
          filters.add(filter);
        });
    var handler =
        WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(application))
            .filters(list -> list.addAll(filters))
            .build();
    server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(new ReactorHttpHandlerAdapter(handler))
            .bindNow(Duration.ofSeconds(10));
    return server.port();
  }

  /** Every gate's limiter refuses blocking calls on the event loop: a request would then fail. */
  @Override
  protected RateLimiter seenByTheGates(RateLimiter limiter) {
    return EventLoopGuard.wrap(limiter);
  }

  @Override
  protected void stopServing() {
    if (server != null) {
      server.disposeNow(Duration.ofSeconds(10));
    }
  }
}
