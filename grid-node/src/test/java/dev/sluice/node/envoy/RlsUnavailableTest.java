package dev.sluice.node.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.stats.FrontEnds;
import dev.sluice.core.test.OfflineGrid;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A grid that cannot decide is Envoy's {@code UNAVAILABLE} (so that {@code failure_mode_deny}
 * decides), whatever the grid's own exception: the service sees only the core's {@code
 * LimiterUnavailableException}. The grid is a real Hazelcast client pointed at a loopback port
 * where no member listens.
 */
class RlsUnavailableTest {
  private static final EnvoyConfig CONFIG =
      EnvoyConfigLoader.parse(
          "edge.yaml",
          """
          domain: edge
          descriptors:
            - key: ip
              rate_limit: {unit: second, requests_per_unit: 10}
          """);

  @Test
  void shouldRateLimit_gridOffline_answersUnavailable() throws Exception {
    HazelcastInstance client = OfflineGrid.client();
    try (GridRateLimiter limiter = new GridRateLimiter(client)) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      RlsService service =
          new RlsService(
              new ShouldRateLimit(
                  () -> CONFIG,
                  new SluiceCounting(limiter, () -> CONFIG),
                  new EnvoyMetrics(registry),
                  Set.of(),
                  false,
                  System::nanoTime),
              new EnvoyMetrics(new SimpleMeterRegistry()),
              new FrontEnds().register("envoy", "127.0.0.1:0"));
      CompletableFuture<Throwable> failure = new CompletableFuture<>();

      service.shouldRateLimit(
          RateLimitRequest.newBuilder()
              .setDomain("edge")
              .addDescriptors(
                  RateLimitDescriptor.newBuilder()
                      .addEntries(
                          RateLimitDescriptor.Entry.newBuilder()
                              .setKey("ip")
                              .setValue("203.0.113.7")))
              .build(),
          new StreamObserver<RateLimitResponse>() {
            @Override
            public void onNext(RateLimitResponse value) {
              failure.completeExceptionally(new AssertionError("answered " + value));
            }

            @Override
            public void onError(Throwable t) {
              failure.complete(t);
            }

            @Override
            public void onCompleted() {}
          });

      Status status = Status.fromThrowable(failure.get(5, TimeUnit.SECONDS));
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).isEqualTo("the grid cannot decide right now; retry");
    } finally {
      client.shutdown();
    }
  }
}
