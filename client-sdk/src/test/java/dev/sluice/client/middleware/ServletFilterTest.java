package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.SluiceClient;
import dev.sluice.client.TestLimiters;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter as docs/client.md shows it, in a real Jetty 12 (ee10) servlet container on
 * port 0; every scenario of the gate runs in {@link GateContractServletTest}.
 */
class ServletFilterTest {
  private Server server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  @Test
  void doFilter_sixthRequestOfFivePerMinute_gets429WithHeaders() throws Exception {
    SluiceClient sluice = SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    // docs/client.md: servlet
    RateLimitGate login =
        RateLimitGate.builder(sluice).rule("login").key(KeyExtractor.clientIp()).build();
    ServletContextHandler context = new ServletContextHandler();
    context.addFilter(
        new FilterHolder(new SluiceFilter(login)), "/login", EnumSet.of(DispatcherType.REQUEST));
    // end
    context.addServlet(new ServletHolder(new Welcome()), "/login");
    context.addServlet(new ServletHolder(new Welcome()), "/open");
    server = Jetty.start(context);
    int port = Jetty.port(server);

    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
    // Paths the filter is not mapped to are not limited.
    assertThat(Http.get(port, "/open").statusCode()).isEqualTo(200);
  }

  static final class Welcome extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.getWriter().write("welcome");
    }
  }
}
