package dev.sluice.node.envoy;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.stats.FrontEnd;
import dev.sluice.rest.ApiError;
import dev.sluice.rest.ExtraRoute;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;

/**
 * The peer's {@code POST /json} on the REST port: the same request as {@code ShouldRateLimit}, as
 * protobuf JSON, for clients that cannot speak gRPC (a Lua filter, curl):
 *
 * <pre>
 * curl -s localhost:8080/json -d '{"domain": "edge", "descriptors": [{"entries": [{"key": "remote_address", "value": "10.0.0.1"}]}]}'
 * {"overallCode": "OK", "statuses": [{"code": "OK", "currentLimit": {...}, "limitRemaining": 99, ...}]}
 * </pre>
 *
 * 200 with the answer when OK, 429 with it when OVER_LIMIT, as the peer. Unlike the peer, a bad
 * request gets the REST API's {@code {"error", "message"}} with a message naming the problem
 * instead of a bare "Bad Request"; the content type is not checked (the peer does not either).
 * Field names are accepted in both protobuf JSON forms ({@code hits_addend}, {@code hitsAddend});
 * unknown fields are refused.
 */
final class JsonRoute {
  private static final JsonFormat.Parser PARSER = JsonFormat.parser();
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().omittingInsignificantWhitespace();

  private JsonRoute() {}

  /** The command {@code POST /json} reports to the console's front-end stats. */
  static final String COMMAND = "POST /json";

  static ExtraRoute of(ShouldRateLimit decider, FrontEnd served) {
    return ExtraRoute.post(
        "/json",
        ctx -> {
          try {
            serve(ctx, decider);
            served.served(COMMAND);
          } catch (Exception e) {
            served.failed(COMMAND);
            throw e;
          }
        });
  }

  private static void serve(Context ctx, ShouldRateLimit decider) throws Exception {
    String body = new String(ctx.bodyAsBytes(), StandardCharsets.UTF_8);
    if (body.isBlank()) {
      throw new ApiError(
          400,
          ApiError.MALFORMED_JSON,
          "the request body is empty; send a RateLimitRequest as JSON, e.g. {\"domain\": \"edge\","
              + " \"descriptors\": [{\"entries\": [{\"key\": \"k\", \"value\": \"v\"}]}]}");
    }
    RateLimitRequest.Builder request = RateLimitRequest.newBuilder();
    try {
      PARSER.merge(body, request);
    } catch (InvalidProtocolBufferException e) {
      throw new ApiError(
          400,
          ApiError.MALFORMED_JSON,
          "the request body is not a RateLimitRequest in protobuf JSON: " + e.getMessage());
    }
    RateLimitResponse response;
    try {
      response = decider.decide(request.build()).toCompletableFuture().join();
    } catch (InvalidRequestException e) {
      throw new ApiError(400, ApiError.INVALID_FIELD, e.getMessage());
    } catch (CompletionException e) {
      Throwable cause = Futures.unwrap(e);
      if (cause instanceof Exception exception) {
        throw exception; // the API maps grid failures to 503
      }
      throw e;
    }
    ctx.status(response.getOverallCode() == RateLimitResponse.Code.OVER_LIMIT ? 429 : 200)
        .contentType("application/json")
        .result(PRINTER.print(response));
  }
}
