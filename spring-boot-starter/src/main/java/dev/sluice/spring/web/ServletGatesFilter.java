package dev.sluice.spring.web;

import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.SluiceFilter;
import dev.sluice.spring.GateProperties.Position;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.List;

/**
 * The configured gates at one {@link Position} in a servlet application: each gate that matches the
 * request is the client SDK's {@link SluiceFilter}, chained in the order the gates are listed.
 */
public final class ServletGatesFilter implements Filter {
  private final ConfiguredGates gates;
  private final Position position;

  public ServletGatesFilter(ConfiguredGates gates, Position position) {
    this.gates = gates;
    this.position = position;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http)) {
      chain.doFilter(request, response);
      return;
    }
    String path = http.getRequestURI().substring(http.getContextPath().length());
    List<RateLimitGate> matched = gates.matching(position, http.getMethod(), path);
    through(matched, 0, request, response, chain);
  }

  private static void through(
      List<RateLimitGate> matched,
      int index,
      ServletRequest request,
      ServletResponse response,
      FilterChain chain)
      throws IOException, ServletException {
    if (index == matched.size()) {
      chain.doFilter(request, response);
      return;
    }
    new SluiceFilter(matched.get(index))
        .doFilter(request, response, (req, res) -> through(matched, index + 1, req, res, chain));
  }
}
