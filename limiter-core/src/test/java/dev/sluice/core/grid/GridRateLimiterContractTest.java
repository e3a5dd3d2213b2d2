package dev.sluice.core.grid;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import dev.sluice.core.grid.transport.GridTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The contract suite on a real two-member grid sharing one manual clock: through an embedded member
 * with the default options, through a member with every call batched, and through a Hazelcast
 * client; each of the last two also over the transport that uses Hazelcast's public API only
 * ({@link GridTransport.Kind#PUBLIC_API}), the way out should an upgrade break the internals.
 */
class GridRateLimiterContractTest {
  private static GridTestCluster cluster;
  private static GridRateLimiter member;
  private static GridRateLimiter memberAllBatched;
  private static GridRateLimiter client;
  private static GridRateLimiter memberPublicApi;
  private static GridRateLimiter clientPublicApi;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(2);
    member = cluster.limiter(0);
    memberAllBatched =
        cluster.limiter(
            cluster.members.get(1), GridRateLimiter.Options.defaults().withBatching(true));
    client = cluster.limiter(cluster.newClient(), GridRateLimiter.Options.defaults());
    GridRateLimiter.Options publicApi =
        GridRateLimiter.Options.defaults().withTransport(GridTransport.Kind.PUBLIC_API);
    memberPublicApi = cluster.limiter(cluster.members.get(0), publicApi.withBatching(true));
    clientPublicApi = cluster.limiter(cluster.newClient(), publicApi);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Nested
  class EmbeddedMember extends RateLimiterContract {
    @Override
    protected RateLimiter limiter() {
      return member;
    }

    @Override
    protected ManualTimeSource clock() {
      return cluster.clock;
    }
  }

  @Nested
  class EmbeddedMemberAllBatched extends RateLimiterContract {
    @Override
    protected RateLimiter limiter() {
      return memberAllBatched;
    }

    @Override
    protected ManualTimeSource clock() {
      return cluster.clock;
    }
  }

  @Nested
  class HazelcastClient extends RateLimiterContract {
    @Override
    protected RateLimiter limiter() {
      return client;
    }

    @Override
    protected ManualTimeSource clock() {
      return cluster.clock;
    }
  }

  @Nested
  class EmbeddedMemberAllBatchedPublicApi extends RateLimiterContract {
    @Override
    protected RateLimiter limiter() {
      return memberPublicApi;
    }

    @Override
    protected ManualTimeSource clock() {
      return cluster.clock;
    }
  }

  @Nested
  class HazelcastClientPublicApi extends RateLimiterContract {
    @Override
    protected RateLimiter limiter() {
      return clientPublicApi;
    }

    @Override
    protected ManualTimeSource clock() {
      return cluster.clock;
    }
  }
}
