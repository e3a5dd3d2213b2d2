package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.local.LocalRateLimiter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Another module's route on the API's port: served, with the API's own error answers. */
class ExtraRouteTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void extraRoute_servedBesideTheApisOwn_andItsApiErrorsAnswerAsTheApisDo() throws Exception {
    ExtraRoute echo =
        ExtraRoute.post(
            "/echo",
            ctx -> {
              if (ctx.body().isEmpty()) {
                throw new ApiError(400, ApiError.MALFORMED_JSON, "send something");
              }
              ctx.result(ctx.body());
            });
    SluiceApi api =
        new SluiceApi(
                LocalRateLimiter.builder().build(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                ApiSettings.withAdminToken("token"),
                ReadinessProbe.alwaysReady(),
                () -> 0,
                List.of(echo),
                null)
            .start("127.0.0.1", 0);
    try {
      HttpResponse<String> echoed = post(api, "/echo", "hello");
      HttpResponse<String> refused = post(api, "/echo", "");
      HttpResponse<String> own =
          post(api, "/v1/check", "{\"key\": \"k\", \"limit\": 1, \"window\": \"1s\"}");

      assertThat(echoed.statusCode()).isEqualTo(200);
      assertThat(echoed.body()).isEqualTo("hello");
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.body())
          .isEqualTo("{\"error\":\"malformed_json\",\"message\":\"send something\"}");
      assertThat(own.statusCode()).isEqualTo(200);
    } finally {
      api.stop();
    }
  }

  @Test
  void extraRoute_onAPathOfTheApisOwn_isRefused() {
    for (String path : List.of("/v1/check", "/health/ready", "/metrics", "/openapi.json", "json")) {
      assertThatThrownBy(() -> ExtraRoute.post(path, ctx -> {}))
          .as(path)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private HttpResponse<String> post(SluiceApi api, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
