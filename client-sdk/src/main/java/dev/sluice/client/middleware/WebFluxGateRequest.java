package dev.sluice.client.middleware;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.server.ServerWebExchange;

/**
 * A WebFlux exchange as the gate reads it. The principal is resolved before (WebFlux gives it as a
 * {@code Mono}), so that nothing here waits. Public for the other reactive adapters (the Spring
 * Boot starter's gateway key resolvers).
 */
public record WebFluxGateRequest(ServerWebExchange exchange, @Nullable Principal principal)
    implements GateRequest {

  @Override
  public String remoteAddress() {
    InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
    if (remote == null) {
      return "";
    }
    return remote.getAddress() != null
        ? remote.getAddress().getHostAddress()
        : remote.getHostString();
  }

  @Override
  public List<String> headers(String name) {
    List<String> values = exchange.getRequest().getHeaders().get(name);
    return values == null ? List.of() : values;
  }

  @Override
  public String method() {
    return exchange.getRequest().getMethod().name();
  }

  @Override
  public String path() {
    return exchange.getRequest().getPath().value();
  }

  @Override
  public @Nullable Object attribute(String name) {
    return exchange.getAttribute(name);
  }
}
