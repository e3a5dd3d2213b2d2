package dev.sluice.rest;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.Objects;
import java.util.Set;

/**
 * A route that another module serves on the REST port, beside the API's own: the grid node's Envoy
 * front end adds {@code POST /json} this way, so that its logic stays in grid-node and this module
 * knows nothing of it.
 *
 * <p>Its handler runs like the API's own: an {@link ApiError} it throws becomes the usual {@code
 * {"error", "message"}} answer, and any other exception a 500 (or a 503 for the grid's). It gets no
 * admin check and is not timed in {@code sluice_check_seconds}. Paths of the API's own ({@code
 * /v1/...}, {@code /health/...}, {@code /metrics}, {@code /openapi.json}, the console's {@code /}
 * and {@code /console/...}) are refused.
 *
 * @param method the HTTP method, e.g. {@link HandlerType#POST}
 * @param path the path, e.g. {@code /json}
 * @param handler what serves it
 */
public record ExtraRoute(HandlerType method, String path, Handler handler) {
  private static final Set<String> OWN_PATHS = Set.of("/", "/metrics", "/openapi.json");

  public ExtraRoute {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(handler, "handler");
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with '/', was " + path);
    }
    if (path.startsWith("/v1/")
        || path.startsWith("/health/")
        || path.startsWith("/console/")
        || OWN_PATHS.contains(path)) {
      throw new IllegalArgumentException(path + " is one of the API's own paths");
    }
  }

  /** {@code POST path}. */
  public static ExtraRoute post(String path, Handler handler) {
    return new ExtraRoute(HandlerType.POST, path, handler);
  }
}
