package dev.sluice.core.grid;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RealClockSaturationContract;
import dev.sluice.core.grid.transport.GridTransport;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Three members on the system clock with the production TTL, called through two members' limiters
 * (one batched, one direct) and clients' over both transports: what a grid node runs, saturated.
 * Every limiter holds leases, as by default: the bound must hold with hot keys answered from them.
 */
@Tag("realtime") // saturates keys on the real clock, judged by each algorithm's bound
class GridRealClockSaturationTest extends RealClockSaturationContract {
  private static GridTestCluster cluster;
  private static List<RateLimiter> callers;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.startOnSystemClock(3);
    callers =
        List.of(
            cluster.limiter(0),
            cluster.limiter(
                cluster.members.get(1), GridRateLimiter.Options.defaults().withBatching(false)),
            cluster.limiter(cluster.newClient(), GridRateLimiter.Options.defaults()),
            cluster.limiter(
                cluster.newClient(),
                GridRateLimiter.Options.defaults().withTransport(GridTransport.Kind.PUBLIC_API)));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Override
  protected List<RateLimiter> callers() {
    return callers;
  }

  @Override
  protected boolean holdsLeases() {
    return true;
  }
}
