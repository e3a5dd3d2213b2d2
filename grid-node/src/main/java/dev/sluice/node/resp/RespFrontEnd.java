package dev.sluice.node.resp;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.stats.FrontEnd;
import dev.sluice.core.stats.FrontEnds;
import dev.sluice.rest.AdminToken;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The grid node's Redis protocol front end (docs/resp.md): RESP2 and RESP3 on one port, for any
 * Redis client, through the node's one decision pipeline.
 *
 * <pre>{@code
 * RespFrontEnd resp = RespFrontEnd.start(limiter, registry, ClusterView.members(member),
 *     new RespFrontEnd.Options("127.0.0.1", 6380, adminToken, RespLimits.defaults()));
 * ...
 * resp.close();    // before the limiter and the member stop
 * }</pre>
 *
 * Where to read on: {@link CommandTable} (the commands), {@link ConnectionHandler} (one connection:
 * order, batching, back-pressure), {@link ThrottleCommand} and {@link GcraCommand} (the peers'
 * semantics), {@link SluiceCommands} (REST's).
 */
public final class RespFrontEnd implements AutoCloseable {
  /** The pipeline's synchronous calls (releases, rule changes) at once, at most; more wait. */
  private static final int CALL_THREADS = 2;

  /** Synchronous calls that may wait for a thread; more are answered "busy". */
  private static final int CALL_QUEUE = 1024;

  /**
   * How the port is served.
   *
   * @param host the address to bind
   * @param port the port; 0: any free one (tests)
   * @param adminToken the node's admin token; null or empty: admin commands are open
   * @param limits what one connection may send and hold
   */
  public record Options(String host, int port, @Nullable String adminToken, RespLimits limits) {}

  private final RespServer server;
  private final RespStats stats;
  private final ThreadPoolExecutor calls;

  private RespFrontEnd(RespServer server, RespStats stats, ThreadPoolExecutor calls) {
    this.server = server;
    this.stats = stats;
    this.calls = calls;
  }

  /**
   * Starts serving: decides through {@code limiter}, reports on {@code registry} and to the
   * console's {@code frontEnds} (as {@code resp}), tells cluster clients about {@code cluster}'s
   * nodes.
   *
   * @throws java.io.UncheckedIOException if the port cannot be bound (caused by a {@code
   *     BindException} when it is taken)
   */
  public static RespFrontEnd start(
      RateLimiter limiter,
      MeterRegistry registry,
      FrontEnds frontEnds,
      ClusterView cluster,
      Options options) {
    RespStats stats = new RespStats();
    FrontEnd served = frontEnds.register("resp", options.host() + ":" + options.port());
    served.connections(stats::connectedClients);
    RespMetrics metrics = new RespMetrics(registry, stats, served);
    ThreadPoolExecutor calls = callExecutor();
    AdminToken token = new AdminToken(options.adminToken());
    GcraPolicies policies = new GcraPolicies();
    RespServer[] bound = new RespServer[1];
    CommandTable[] table = new CommandTable[1];
    table[0] =
        new CommandTable(
            new ThrottleCommand(policies),
            new GcraCommand(policies),
            new SluiceCommands(limiter, token, calls),
            new ConnectionCommands(token),
            new ServerCommands(() -> table[0], stats, () -> bound[0] == null ? 0 : bound[0].port()),
            new ClusterCommands(cluster));
    try {
      bound[0] =
          RespServer.start(
              options.host(),
              options.port(),
              options.limits(),
              stats,
              () -> new ConnectionHandler(table[0], limiter, metrics, options.limits()));
    } catch (RuntimeException e) {
      calls.shutdownNow();
      throw e;
    }
    return new RespFrontEnd(bound[0], stats, calls);
  }

  private static ThreadPoolExecutor callExecutor() {
    AtomicInteger threads = new AtomicInteger();
    ThreadPoolExecutor calls =
        new ThreadPoolExecutor(
            CALL_THREADS,
            CALL_THREADS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(CALL_QUEUE),
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-resp-call-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    calls.allowCoreThreadTimeOut(true);
    return calls;
  }

  /** The port it listens on. */
  public int port() {
    return server.port();
  }

  /** Stops accepting, closes every connection, then lets calls in flight finish (up to 5 s). */
  @Override
  public void close() {
    server.stopListening();
    stats.closeAll();
    server.close();
    calls.shutdown();
    try {
      if (!calls.awaitTermination(5, TimeUnit.SECONDS)) {
        calls.shutdownNow();
      }
    } catch (InterruptedException e) {
      calls.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
