package dev.sluice.client.middleware;

import java.net.InetSocketAddress;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A real Jetty 12 (ee10) servlet container on 127.0.0.1, port 0, for the servlet-based tests. */
final class Jetty {
  private Jetty() {}

  /** Starts {@code context} on a free loopback port. */
  static Server start(ServletContextHandler context) throws Exception {
    Server server = new Server(new InetSocketAddress("127.0.0.1", 0));
    server.setHandler(context);
    server.start();
    return server;
  }

  static int port(Server server) {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }
}
