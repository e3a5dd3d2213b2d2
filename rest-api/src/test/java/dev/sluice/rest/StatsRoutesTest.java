package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.stats.NodeStats;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The console's page and data routes over a local limiter whose stats the test ticks. */
class StatsRoutesTest {
  private final NodeStats stats = NodeStats.manual("test-node");

  /**
   * On a frozen clock: the tests count decisions of a sliding window exactly, and on the wall clock
   * a minute's boundary falling among a test's checks (a few hundred milliseconds of requests to a
   * fresh server) reads the earlier ones as fewer, so one more would be admitted. The stats are
   * ticked by the test, not by this clock.
   */
  private final LocalRateLimiter limiter =
      LocalRateLimiter.builder()
          .timeSource(ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z")))
          .build();

  private final SluiceApi api =
      new SluiceApi(
              limiter,
              new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
              ApiSettings.withAdminToken(ApiServer.TOKEN),
              ReadinessProbe.alwaysReady(),
              () -> 0,
              List.of(),
              Console.local(stats))
          .start("127.0.0.1", 0);
  private final Client client = new Client(api.port());

  @AfterEach
  void stop() {
    api.stop();
  }

  @Test
  void page_isServedWithAStrictContentSecurityPolicy() {
    ApiServer.Response page = client.get("/", null);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).startsWith("text/html");
    assertThat(page.header("Content-Security-Policy")).contains("script-src 'self'");
    assertThat(page.body()).contains("/console/console.js").doesNotContain("http://", "https://");
    assertThat(client.get("/console/console.js", null).header("Content-Type"))
        .startsWith("text/javascript");
    ApiServer.Response missing = client.get("/console/../openapi.json", null);
    assertThat(missing.status()).isEqualTo(404);
  }

  @Test
  void stats_afterDecisions_reportsTheRulesRatesAndFrontEnd() {
    limiter.rules().put(new Rule("login", Policy.of(2, Duration.ofMinutes(1))));
    for (int i = 0; i < 5; i++) {
      client.check("login", "203.0.113.7");
    }
    long second = NodeStats.lastClosedSecond(System.currentTimeMillis());
    stats.tick(second);

    JsonNode body = client.get("/v1/stats?seconds=60", null).json();

    assertThat(body.at("/node/mode").asText()).isEqualTo("local");
    assertThat(body.at("/rules/0/name").asText()).isEqualTo("login");
    assertThat(body.at("/rules/0/origin").asText()).isEqualTo("api");
    JsonNode rates = body.at("/stats/rates/0");
    assertThat(rates.path("rule").asText()).isEqualTo("login");
    assertThat(sum(rates.path("allowed"))).isEqualTo(2);
    assertThat(sum(rates.path("denied"))).isEqualTo(3);
    assertThat(body.at("/stats/frontEnds/0/name").asText()).isEqualTo("rest");
  }

  @Test
  void limitedKeys_textOnlyWithTheToken_wrongTokenRefused() {
    limiter.rules().put(new Rule("login", Policy.of(1, Duration.ofMinutes(1))));
    for (int i = 0; i < 4; i++) {
      client.check("login", "203.0.113.7");
    }

    JsonNode masked = client.get("/v1/stats/limited-keys", null).json();
    JsonNode shown = client.get("/v1/stats/limited-keys?rule=login", ApiServer.TOKEN).json();
    ApiServer.Response refused = client.get("/v1/stats/limited-keys", "wrong");

    assertThat(masked.path("masked").asBoolean()).isTrue();
    assertThat(masked.at("/rules/0/keys/0/key").asText()).matches("key#[0-9a-f]{12}");
    assertThat(masked.toString()).doesNotContain("203.0.113.7");
    assertThat(masked.at("/rules/0/keys/0/count").asLong()).isEqualTo(3);
    assertThat(shown.path("masked").asBoolean()).isFalse();
    assertThat(shown.at("/rules/0/keys/0/key").asText()).isEqualTo("203.0.113.7");
    assertThat(refused.status()).isEqualTo(403);
  }

  @Test
  void badParameters_areRefusedNamingTheParameter() {
    assertThat(client.get("/v1/stats?seconds=0", null).json().path("message").asText())
        .startsWith("seconds:");
    assertThat(client.get("/v1/stats?seconds=901", null).status()).isEqualTo(400);
    assertThat(client.get("/v1/stats/limited-keys?top=x", null).json().path("message").asText())
        .startsWith("top:");
    assertThat(client.get("/v1/stats/limited-keys?rule=a%20b", null).status()).isEqualTo(400);
  }

  private static long sum(JsonNode values) {
    long sum = 0;
    for (JsonNode value : values) {
      sum += value.asLong();
    }
    return sum;
  }

  /** GETs with or without a bearer token, and checks. */
  private record Client(int port) {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ApiServer.Response send(HttpRequest.Builder request) {
      try {
        return new ApiServer.Response(
            HTTP.send(
                request.timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    ApiServer.Response get(String path, String token) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
      if (token != null) {
        request.header("Authorization", "Bearer " + token);
      }
      return send(request);
    }

    void check(String rule, String key) {
      send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/check"))
              .header("Content-Type", "application/json")
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"rule\": \"" + rule + "\", \"key\": \"" + key + "\"}")));
    }
  }
}
