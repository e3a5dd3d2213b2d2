package dev.sluice.client.middleware;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * A Spring MVC interceptor: register it for the paths to limit ({@code registry.addInterceptor(new
 * SluiceHandlerInterceptor(gate)).addPathPatterns("/login")}). A denied request gets 429, the
 * RateLimit headers and a JSON body, and the handler is not called. A concurrency rule's permit is
 * given back in {@code afterCompletion}, which Spring calls whether the handler returned or threw.
 */
public final class SluiceHandlerInterceptor implements HandlerInterceptor {
  private static final String ADMISSION = SluiceHandlerInterceptor.class.getName() + ".admission";

  private final RateLimitGate gate;

  public SluiceHandlerInterceptor(RateLimitGate gate) {
    this.gate = gate;
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws Exception {
    Admission admission = gate.enter(request, response);
    if (admission == null) {
      return true;
    }
    if (admission.admitted()) {
      request.setAttribute(ADMISSION, admission);
    }
    return admission.admitted();
  }

  @Override
  public void afterCompletion(
      HttpServletRequest request,
      HttpServletResponse response,
      Object handler,
      @Nullable Exception ex) {
    if (request.getAttribute(ADMISSION) instanceof Admission admission) {
      admission.release();
    }
  }
}
