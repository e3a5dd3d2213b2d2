package dev.sluice.client.middleware;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * A Spring MVC interceptor: register it for the paths to limit ({@code registry.addInterceptor(new
 * SluiceHandlerInterceptor(gate)).addPathPatterns("/login")}). A denied request gets 429, the
 * RateLimit headers and a JSON body, and the handler is not called.
 */
public final class SluiceHandlerInterceptor implements HandlerInterceptor {
  private final RateLimitGate gate;

  public SluiceHandlerInterceptor(RateLimitGate gate) {
    this.gate = gate;
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws Exception {
    return gate.admit(request, response);
  }
}
