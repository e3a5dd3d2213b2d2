package dev.sluice.client.middleware;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A Jakarta Servlet filter over a {@link RateLimitGate}: a request that proceeds gets the headers
 * and the rest of the chain (after its delay, when the gate waits; marked when shadow-banned), any
 * other the gate's answer. A concurrency rule's permit is given back when the chain is done, even
 * if it threw.
 */
public final class SluiceFilter implements Filter {
  private final RateLimitGate gate;

  public SluiceFilter(RateLimitGate gate) {
    this.gate = gate;
  }

  /**
   * Whether a gate let {@code request} through under a shadow ban: answer it as a success and skip
   * the side effect (the request attribute {@link RateLimitGate#SHADOW_BANNED_ATTRIBUTE}).
   */
  public static boolean shadowBanned(ServletRequest request) {
    return ServletGate.shadowBanned(request);
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http)
        || !(response instanceof HttpServletResponse httpResponse)) {
      chain.doFilter(request, response);
      return;
    }
    Admission admission = ServletGate.enter(gate, http, httpResponse);
    if (!admission.proceeds()) {
      return;
    }
    try {
      chain.doFilter(request, response);
    } finally {
      admission.release();
    }
  }
}
