package dev.sluice.client.middleware;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * A Spring MVC interceptor over a {@link RateLimitGate}: register it for the paths to limit ({@code
 * registry.addInterceptor(new SluiceHandlerInterceptor(gate)).addPathPatterns("/login")}). A
 * request that does not proceed gets the gate's answer and the handler is not called. A concurrency
 * rule's permit is given back in {@code afterCompletion}, which Spring calls whether the handler
 * returned or threw.
 */
public final class SluiceHandlerInterceptor implements HandlerInterceptor {
  private static final String ADMISSION = SluiceHandlerInterceptor.class.getName() + ".admission";

  private final RateLimitGate gate;

  public SluiceHandlerInterceptor(RateLimitGate gate) {
    this.gate = gate;
  }

  /**
   * Whether a gate let {@code request} through under a shadow ban: answer it as a success and skip
   * the side effect (the request attribute {@link RateLimitGate#SHADOW_BANNED_ATTRIBUTE}).
   */
  public static boolean shadowBanned(HttpServletRequest request) {
    return ServletGate.shadowBanned(request);
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws Exception {
    Admission admission = ServletGate.enter(gate, request, response);
    if (admission.proceeds()) {
      request.setAttribute(ADMISSION, admission);
    }
    return admission.proceeds();
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
