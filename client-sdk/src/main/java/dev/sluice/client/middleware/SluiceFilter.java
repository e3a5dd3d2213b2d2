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
 * headers and a JSON body when denied, the headers and the rest of the chain when allowed.
 */
public final class SluiceFilter implements Filter {
  private final RateLimitGate gate;

  public SluiceFilter(RateLimitGate gate) {
    this.gate = gate;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request instanceof HttpServletRequest http
        && response instanceof HttpServletResponse httpResponse
        && !gate.admit(http, httpResponse)) {
      return;
    }
    chain.doFilter(request, response);
  }
}
