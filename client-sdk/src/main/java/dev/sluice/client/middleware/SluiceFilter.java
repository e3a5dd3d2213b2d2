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
 * A Jakarta Servlet filter that rate-limits the requests it is mapped to: 429 with the RateLimit
 * headers and a JSON body when denied, the headers and the rest of the chain when allowed (after
 * the delay, when the gate waits). A concurrency rule's permit is given back when the chain is
 * done, even if it threw.
 */
public final class SluiceFilter implements Filter {
  private final RateLimitGate gate;

  public SluiceFilter(RateLimitGate gate) {
    this.gate = gate;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http)
        || !(response instanceof HttpServletResponse httpResponse)) {
      chain.doFilter(request, response);
      return;
    }
    Admission admission = gate.enter(http, httpResponse);
    if (admission == null) {
      chain.doFilter(request, response);
      return;
    }
    if (!admission.admitted()) {
      return;
    }
    try {
      chain.doFilter(request, response);
    } finally {
      admission.release();
    }
  }
}
