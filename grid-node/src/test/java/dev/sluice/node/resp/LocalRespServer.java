package dev.sluice.node.resp;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.stats.FrontEnds;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;

/**
 * The Redis protocol front end over a local limiter on a manual clock, on a free port: what the
 * protocol tests need of a node, started in milliseconds. Its limits are the test's to choose (a
 * half-sent frame times out in a fraction of a second here).
 */
final class LocalRespServer implements AutoCloseable {
  static final String TOKEN = "resp-test-token";

  final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));
  final LocalRateLimiter limiter = LocalRateLimiter.builder().timeSource(clock).build();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final FrontEnds frontEnds = new FrontEnds();
  final RespFrontEnd frontEnd;

  LocalRespServer(RespLimits limits, @org.jspecify.annotations.Nullable String adminToken) {
    frontEnd =
        RespFrontEnd.start(
            limiter,
            registry,
            frontEnds,
            () -> List.of(new ClusterView.Node("0".repeat(40), "127.0.0.1", 0, 0, true)),
            new RespFrontEnd.Options("127.0.0.1", 0, adminToken, limits));
  }

  LocalRespServer() {
    this(RespLimits.defaults(), TOKEN);
  }

  int port() {
    return frontEnd.port();
  }

  RespWire connect() {
    return new RespWire(port());
  }

  /** How many commands the port answered as {@code command} with {@code outcome}. */
  double answered(String command, String outcome) {
    var counter =
        registry
            .find("sluice.resp.commands")
            .tag("command", command)
            .tag("outcome", outcome)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  @Override
  public void close() {
    frontEnd.close();
  }
}
