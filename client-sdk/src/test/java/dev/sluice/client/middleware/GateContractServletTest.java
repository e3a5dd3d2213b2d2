package dev.sluice.client.middleware;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;

/** The gate contract through {@link SluiceFilter}, in a real Jetty 12 (ee10) servlet container. */
class GateContractServletTest extends GateContract {
  private Server server;

  @Override
  protected int serve(Map<String, RateLimitGate> gates) throws Exception {
    ServletContextHandler context = new ServletContextHandler();
    gates.forEach(
        (path, gate) ->
            context.addFilter(
                new FilterHolder(new SluiceFilter(gate)),
                path,
                EnumSet.of(DispatcherType.REQUEST)));
    context.addServlet(new ServletHolder(new ApplicationServlet()), "/*");
    server = Jetty.start(context);
    return Jetty.port(server);
  }

  @Override
  protected void stopServing() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  static final class ApplicationServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      try {
        response
            .getWriter()
            .write(Application.handle(request.getRequestURI(), SluiceFilter.shadowBanned(request)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
  }
}
