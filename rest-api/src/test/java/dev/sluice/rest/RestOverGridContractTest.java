package dev.sluice.rest;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import dev.sluice.core.grid.GridTestCluster;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite over HTTP against what a grid node serves: the REST API over the grid limiter
 * of one of three real members (a manual clock on every member), called through {@link
 * HttpRateLimiter}. Keys are owned by all three members, so most checks cross from the member that
 * serves HTTP to the key's owner.
 */
class RestOverGridContractTest extends RateLimiterContract {
  private static GridTestCluster cluster;
  private static SluiceApi api;
  private static HttpRateLimiter overHttp;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(3);
    api =
        new SluiceApi(
                cluster.limiter(0),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                ApiSettings.withAdminToken(ApiServer.TOKEN),
                ReadinessProbe.alwaysReady(),
                () -> 0)
            .start("127.0.0.1", 0);
    overHttp =
        new HttpRateLimiter(
            java.net.URI.create("http://127.0.0.1:" + api.port() + "/"), ApiServer.TOKEN);
  }

  @AfterAll
  static void stop() {
    api.stop();
    cluster.close();
  }

  @Override
  protected RateLimiter limiter() {
    return overHttp;
  }

  @Override
  protected ManualTimeSource clock() {
    return cluster.clock;
  }

  /** The REST API answers inline checks under their own state: it carries no state name. */
  @Override
  protected boolean carriesStateNames() {
    return false;
  }
}
