package dev.sluice.client.middleware;

import java.security.Principal;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RateLimitGate} reads of an HTTP request, free of any server API: each adapter
 * (servlet, Javalin, Spring MVC, WebFlux, and any other) implements it over its own request type,
 * and {@link KeyExtractor}s are written once over it.
 */
public interface GateRequest {

  /** The address of the connection's peer, as an IP literal ({@code 203.0.113.7}, {@code ::1}). */
  String remoteAddress();

  /** Every value of the header {@code name} (any case), in the order received; empty if absent. */
  List<String> headers(String name);

  /** The first value of the header {@code name}, or null if absent. */
  default @Nullable String header(String name) {
    List<String> values = headers(name);
    return values.isEmpty() ? null : values.get(0);
  }

  /** The authenticated principal, or null for an anonymous request. */
  @Nullable Principal principal();

  /** The request method, {@code GET}, {@code POST}, ... */
  String method();

  /** The request path, without the query string. */
  String path();

  /** The request (or exchange) attribute {@code name}, or null. */
  @Nullable Object attribute(String name);
}
