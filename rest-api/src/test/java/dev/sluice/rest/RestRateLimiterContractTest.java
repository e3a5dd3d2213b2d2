package dev.sluice.rest;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite over HTTP: a real server on port 0, backed by a local limiter with a manual
 * clock, called through {@link HttpRateLimiter}. What passes here behaves over REST exactly as it
 * does in one JVM, including errors and nothing-counted guarantees.
 */
class RestRateLimiterContractTest extends RateLimiterContract {
  private static ApiServer server;
  private static HttpRateLimiter overHttp;

  @BeforeAll
  static void start() {
    server = new ApiServer();
    overHttp = new HttpRateLimiter(server.uri("/"), ApiServer.TOKEN);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Override
  protected RateLimiter limiter() {
    return overHttp;
  }

  @Override
  protected ManualTimeSource clock() {
    return server.clock;
  }

  /** The REST API answers inline checks under their own state: it carries no state name. */
  @Override
  protected boolean carriesStateNames() {
    return false;
  }
}
