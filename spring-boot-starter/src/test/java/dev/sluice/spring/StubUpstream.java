package dev.sluice.spring;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The upstream of the gateway routes in these tests, on a free loopback port: it answers every path
 * with {@code upstream <path>}. Requests under a held prefix ({@link #holding}) wait at the
 * upstream until {@link #release()} (at most 20 seconds), so that a test can keep a request in
 * flight.
 */
final class StubUpstream implements AutoCloseable {
  private final @Nullable String heldPrefix;
  private final CountDownLatch arrived = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final HttpServer server;

  private StubUpstream(@Nullable String heldPrefix) {
    this.heldPrefix = heldPrefix;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (heldPrefix != null && path.startsWith(heldPrefix)) {
            arrived.countDown();
            awaitQuietly(released, Duration.ofSeconds(20));
          }
          byte[] body = ("upstream " + path).getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  /** An upstream that answers at once. */
  static StubUpstream answering() {
    return new StubUpstream(null);
  }

  /** An upstream that holds requests under {@code prefix} until {@link #release()}. */
  static StubUpstream holding(String prefix) {
    return new StubUpstream(prefix);
  }

  /** {@code http://127.0.0.1:<port>}, for a route's {@code uri}. */
  String uri() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Whether a held request has reached the upstream within {@code timeout}. */
  boolean awaitHeld(Duration timeout) throws InterruptedException {
    return arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Lets held requests, and all later ones, be answered. */
  void release() {
    released.countDown();
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    threads.shutdownNow();
  }

  private static void awaitQuietly(CountDownLatch latch, Duration timeout) {
    try {
      latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
