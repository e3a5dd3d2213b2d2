package dev.sluice.node.envoy;

import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.stats.FrontEnd;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over gRPC: hands the request
 * to {@link ShouldRateLimit} and answers when Sluice has counted, without holding a thread while
 * the grid decides.
 *
 * <p>Errors: a malformed request is {@code INVALID_ARGUMENT} naming the field (nothing counted); a
 * grid that cannot decide is {@code UNAVAILABLE} (Envoy's {@code failure_mode_deny} then says
 * whether the request passes); anything else is {@code INTERNAL}, with the details in the log.
 */
final class RlsService extends RateLimitServiceGrpc.RateLimitServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(RlsService.class);

  /** The command this service reports to the console's front-end stats. */
  static final String COMMAND = "ShouldRateLimit";

  private final ShouldRateLimit decider;
  private final EnvoyMetrics metrics;
  private final FrontEnd served;

  RlsService(ShouldRateLimit decider, EnvoyMetrics metrics, FrontEnd served) {
    this.decider = decider;
    this.metrics = metrics;
    this.served = served;
  }

  @Override
  public void shouldRateLimit(
      RateLimitRequest request, StreamObserver<RateLimitResponse> responses) {
    CompletionStage<RateLimitResponse> answer;
    try {
      answer = decider.decide(request);
    } catch (InvalidRequestException e) {
      metrics.invalidRequest();
      served.failed(COMMAND);
      responses.onError(
          Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      served.failed(COMMAND);
      responses.onError(failure(e).asRuntimeException());
      return;
    }
    answer.whenComplete(
        (response, error) -> {
          if (error != null) {
            served.failed(COMMAND);
            responses.onError(failure(error).asRuntimeException());
          } else {
            served.served(COMMAND);
            responses.onNext(response);
            responses.onCompleted();
          }
        });
  }

  private Status failure(Throwable error) {
    Throwable cause = Futures.unwrap(error);
    metrics.limiterError();
    if (cause instanceof LimiterUnavailableException) {
      LOG.warn("ShouldRateLimit: the grid cannot decide: {}", cause.toString());
      return Status.UNAVAILABLE.withDescription("the grid cannot decide right now; retry");
    }
    LOG.error("ShouldRateLimit failed", cause);
    return Status.INTERNAL.withDescription("an internal error occurred; see the node's log");
  }
}
