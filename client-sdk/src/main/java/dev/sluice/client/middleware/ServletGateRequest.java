package dev.sluice.client.middleware;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A servlet request as the gate reads it: for the servlet filter, Spring MVC, Javalin, and any
 * other adapter over the servlet API (the Spring Boot starter's Gateway Server MVC filter).
 */
public record ServletGateRequest(HttpServletRequest request) implements GateRequest {

  @Override
  public String remoteAddress() {
    return request.getRemoteAddr();
  }

  @Override
  public List<String> headers(String name) {
    return Collections.list(request.getHeaders(name));
  }

  @Override
  public @Nullable Principal principal() {
    return request.getUserPrincipal();
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String path() {
    return request.getRequestURI();
  }

  @Override
  public @Nullable Object attribute(String name) {
    return request.getAttribute(name);
  }
}
