package dev.sluice.client.middleware;

import dev.sluice.core.headers.RateLimitHeaders.Header;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The gate on the servlet API, for the adapters that run on it (the servlet filter, Spring MVC's
 * interceptor): enters the request, writes the headers, answers a request that does not proceed,
 * and marks one that proceeds under a shadow ban.
 */
final class ServletGate {
  private ServletGate() {}

  /**
   * Enters {@code request} through {@code gate}. When the admission does not proceed, the answer is
   * written; when it does, the caller calls the handler and then {@link Admission#release()}.
   */
  static Admission enter(
      RateLimitGate gate, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Admission admission = gate.enter(new ServletGateRequest(request));
    for (Header header : admission.headers()) {
      response.setHeader(header.name(), header.value());
    }
    if (!admission.proceeds()) {
      response.setStatus(admission.status());
      response.setContentType("application/json");
      response.setCharacterEncoding("UTF-8");
      response
          .getOutputStream()
          .write(Objects.requireNonNull(admission.body()).getBytes(StandardCharsets.UTF_8));
    } else if (admission.shadowBanned()) {
      request.setAttribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE, Boolean.TRUE);
    }
    return admission;
  }

  /** Whether {@code request} was let through under a shadow ban. */
  static boolean shadowBanned(ServletRequest request) {
    return Boolean.TRUE.equals(request.getAttribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE));
  }
}
