package dev.sluice.node.envoy;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server of the rate limit service, on its own port ({@code rlsPort}).
 *
 * <p>Envoy keeps one HTTP/2 connection per upstream host and may ping it: pings are allowed every
 * 10 seconds, even between calls, so that a proxy's keepalive does not get the connection closed
 * for "too many pings". Stop is graceful: no new calls, the ones in flight finish (up to {@value
 * #GRACE_SECONDS} s), then the rest are cancelled.
 */
final class RlsServer implements AutoCloseable {
  static final int GRACE_SECONDS = 10;

  private final Server server;

  private RlsServer(Server server) {
    this.server = server;
  }

  /**
   * Listens on {@code host:port}.
   *
   * @throws UncheckedIOException if the port cannot be bound (its cause a {@code BindException}
   *     when taken)
   */
  static RlsServer start(String host, int port, BindableService service) {
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(service)
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      server.shutdownNow();
      throw new UncheckedIOException(portTaken(e) ? bindException(host, port, e) : e);
    }
    return new RlsServer(server);
  }

  /**
   * Whether binding failed because the port is taken. Netty's native transport says so in an
   * exception of its own ("bind(..) failed: Address already in use"), not a {@link BindException}.
   */
  private static boolean portTaken(IOException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof BindException
          || String.valueOf(cause.getMessage()).contains("already in use")) {
        return true;
      }
    }
    return false;
  }

  private static IOException bindException(String host, int port, IOException cause) {
    BindException taken = new BindException(host + ":" + port + " is already in use");
    taken.initCause(cause);
    return taken;
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
