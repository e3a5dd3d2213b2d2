package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The routes of docs/rest-api.md on a real server, as timelines on a manual clock. */
class SluiceApiTest {
  private ApiServer server;

  @BeforeEach
  void start() {
    server = new ApiServer();
    assertThat(server.putAdmin("/v1/rules/login", "{\"limit\": 5, \"window\": \"1m\"}").status())
        .isEqualTo(201);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void check_namedRule_fiveAllowedThenDeniedWithHeaders() {
    for (int i = 1; i <= 5; i++) {
      ApiServer.Response allowed =
          server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"203.0.113.7\"}");
      assertThat(allowed.status()).isEqualTo(200);
      JsonNode body = allowed.json();
      assertThat(body.get("allowed").asBoolean()).isTrue();
      assertThat(body.get("limit").asLong()).isEqualTo(5);
      assertThat(body.get("remaining").asLong()).isEqualTo(5 - i);
      assertThat(body.get("retryAfterMs").asLong()).isZero();
      assertThat(body.get("rule").asText()).isEqualTo("login");
      assertThat(body.get("shadow").asBoolean()).isFalse();
      assertThat(body.has("delayMs")).isFalse();
      assertThat(body.has("decidedBy")).as("only answers made without the limiter say").isFalse();
      assertThat(allowed.header("RateLimit-Policy")).isEqualTo("\"login\";q=5;w=60");
      assertThat(allowed.header("RateLimit"))
          .isEqualTo(
              "\"login\";r=" + (5 - i) + ";t=" + ceilSeconds(body.get("resetAfterMs").asLong()));
      assertThat(allowed.header("X-RateLimit-Limit")).isEqualTo("5");
      assertThat(allowed.header("X-RateLimit-Remaining")).isEqualTo(Long.toString(5 - i));
      assertThat(allowed.header("Retry-After")).isNull();
      assertThat(allowed.header("Content-Type")).startsWith("application/json");
    }

    ApiServer.Response denied =
        server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"203.0.113.7\"}");
    assertThat(denied.status()).isEqualTo(429);
    JsonNode body = denied.json();
    assertThat(body.get("allowed").asBoolean()).isFalse();
    assertThat(body.get("remaining").asLong()).isZero();
    long retryAfterMs = body.get("retryAfterMs").asLong();
    assertThat(retryAfterMs).isPositive();
    assertThat(denied.header("Retry-After")).isEqualTo(Long.toString(ceilSeconds(retryAfterMs)));
    assertThat(denied.header("X-RateLimit-Remaining")).isEqualTo("0");
  }

  @Test
  void check_waitingRetryAfterSeconds_succeeds() {
    for (int i = 0; i < 5; i++) {
      server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    }
    ApiServer.Response denied = server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    long retryAfterSeconds = Long.parseLong(denied.header("Retry-After"));

    server.clock.advance(Duration.ofSeconds(retryAfterSeconds));

    assertThat(server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}").status())
        .isEqualTo(200);
  }

  @Test
  void check_waitingRetryAfterMs_succeeds() {
    for (int i = 0; i < 5; i++) {
      server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    }
    long retryAfterMs =
        server
            .post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}")
            .json()
            .get("retryAfterMs")
            .asLong();

    server.clock.advance(Duration.ofMillis(retryAfterMs));

    assertThat(server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}").status())
        .isEqualTo(200);
  }

  @Test
  void check_inlinePolicy_decidesAndNamesNoRule() {
    String inline = "{\"key\": \"k\", \"limit\": 2, \"window\": \"10s\"}";
    ApiServer.Response first = server.post("/v1/check", inline);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().get("rule").isNull()).isTrue();
    assertThat(first.json().get("limit").asLong()).isEqualTo(2);
    assertThat(first.header("RateLimit-Policy")).isEqualTo("\"~inline\";q=2;w=10");
    assertThat(server.post("/v1/check", inline).status()).isEqualTo(200);
    assertThat(server.post("/v1/check", inline).status()).isEqualTo(429);
  }

  @Test
  void check_twoLimitsOfOneQuota_headersListBoth_andNameTheOneThatDenied() {
    server.putAdmin(
        "/v1/rules/otp",
        "{\"limits\": [{\"limit\": 3, \"window\": \"1s\"}, {\"limit\": 3, \"window\": \"1h\"}]}");
    for (int i = 0; i < 3; i++) {
      assertThat(server.post("/v1/check", "{\"rule\": \"otp\", \"key\": \"k\"}").status())
          .isEqualTo(200);
    }
    // A second later the second's limit is whole again; the hour's denies.
    server.clock.advance(Duration.ofSeconds(1));
    ApiServer.Response denied = server.post("/v1/check", "{\"rule\": \"otp\", \"key\": \"k\"}");
    assertThat(denied.status()).isEqualTo(429);
    assertThat(denied.header("RateLimit-Policy"))
        .isEqualTo("\"otp-1s\";q=3;w=1, \"otp-1h\";q=3;w=3600");
    assertThat(denied.header("RateLimit")).startsWith("\"otp-1h\";r=0;t=");
    assertThat(denied.header("X-RateLimit-Limit")).isEqualTo("3");
    assertThat(Long.parseLong(denied.header("Retry-After"))).isGreaterThan(1);
  }

  @Test
  void check_leakyBucket_answersDelayMs() {
    String leaky =
        "{\"key\": \"worker\", \"limit\": 10, \"window\": \"1s\", \"algorithm\":"
            + " \"leaky_bucket\", \"burst\": 3}";
    assertThat(server.post("/v1/check", leaky).json().get("delayMs").asLong()).isZero();
    assertThat(server.post("/v1/check", leaky).json().get("delayMs").asLong()).isEqualTo(100);
    assertThat(server.post("/v1/check", leaky).json().get("delayMs").asLong()).isEqualTo(200);
  }

  @Test
  void check_gcraDesignExample_firstReplyAsRedisCell() {
    server.putAdmin(
        "/v1/rules/api",
        "{\"algorithm\": \"gcra\", \"limit\": 30, \"window\": \"60s\", \"burst\": 15}");

    ApiServer.Response first = server.post("/v1/check", "{\"rule\": \"api\", \"key\": \"k\"}");

    assertThat(first.json().get("limit").asLong()).isEqualTo(16);
    assertThat(first.json().get("remaining").asLong()).isEqualTo(15);
    assertThat(first.json().get("resetAfterMs").asLong()).isEqualTo(2_000);
    assertThat(first.header("RateLimit-Policy")).isEqualTo("\"api\";q=16;w=60");
    assertThat(first.header("RateLimit")).isEqualTo("\"api\";r=15;t=2");
    assertThat(first.header("X-RateLimit-Reset")).isEqualTo("2");
  }

  @Test
  void check_cost_takesThatManyPermits() {
    ApiServer.Response response =
        server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\", \"cost\": 3}");
    assertThat(response.json().get("remaining").asLong()).isEqualTo(2);
    assertThat(
            server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\", \"cost\": 3}").status())
        .isEqualTo(429);
    assertThat(server.get("/v1/limits/login/k").json().get("remaining").asLong()).isEqualTo(2);
  }

  @Test
  void check_shadowRule_answersAllowedAndCountsWouldBeDenial() {
    server.putAdmin("/v1/rules/api", "{\"limit\": 1, \"window\": \"1m\", \"shadow\": true}");
    assertThat(server.post("/v1/check", "{\"rule\": \"api\", \"key\": \"k\"}").status())
        .isEqualTo(200);

    ApiServer.Response wouldDeny = server.post("/v1/check", "{\"rule\": \"api\", \"key\": \"k\"}");

    assertThat(wouldDeny.status()).isEqualTo(200);
    assertThat(wouldDeny.json().get("allowed").asBoolean()).isTrue();
    assertThat(wouldDeny.json().get("shadow").asBoolean()).isTrue();
    assertThat(wouldDeny.header("Retry-After")).isNull();
    assertThat(server.get("/metrics").body())
        .contains("sluice_decisions_total{outcome=\"shadow_denied\",rule=\"api\"} 1.0")
        .contains("sluice_decisions_total{outcome=\"allowed\",rule=\"api\"} 1.0");
  }

  @Test
  void check_shadowBanRule_answers429SayingShadowBanned_andTheRuleReadsBack() {
    String rule = "{\"limit\": 1, \"window\": \"1h\", \"onDenied\": \"shadow_ban\"}";
    assertThat(server.putAdmin("/v1/rules/invites", rule).status()).isEqualTo(201);
    assertThat(server.get("/v1/rules/invites").json().get("onDenied").asText())
        .isEqualTo("shadow_ban");
    assertThat(server.get("/v1/rules/login").json().get("onDenied").asText()).isEqualTo("reject");
    ApiServer.Response first = server.post("/v1/check", "{\"rule\": \"invites\", \"key\": \"k\"}");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().has("shadowBanned")).as("said only of a ban").isFalse();

    ApiServer.Response banned = server.post("/v1/check", "{\"rule\": \"invites\", \"key\": \"k\"}");

    // 429 and allowed false: a caller that reads only the status skips the side effect.
    assertThat(banned.status()).isEqualTo(429);
    assertThat(banned.json().get("allowed").asBoolean()).isFalse();
    assertThat(banned.json().get("shadowBanned").asBoolean()).isTrue();
    assertThat(banned.header("Retry-After")).isNotNull();
    assertThat(server.get("/metrics").body())
        .contains("sluice_decisions_total{outcome=\"shadow_banned\",rule=\"invites\"} 1.0")
        .contains("sluice_decisions_total{outcome=\"denied\",rule=\"invites\"} 0.0");
    // An inline policy says it the same way.
    String inline =
        "{\"key\": \"k\", \"limit\": 1, \"window\": \"1h\", \"onDenied\": \"shadow_ban\"}";
    assertThat(server.post("/v1/check", inline).status()).isEqualTo(200);
    assertThat(server.post("/v1/check", inline).json().get("shadowBanned").asBoolean()).isTrue();
    ApiServer.Response bad =
        server.putAdmin(
            "/v1/rules/invites",
            "{\"limit\": 1, \"window\": \"1h\", \"shadow\": true, \"onDenied\": \"shadow_ban\"}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("message").asText()).startsWith("onDenied: ");
  }

  @Test
  void batch_mixedAnswers_is429WithOneResultPerCheckInOrder() {
    server.putAdmin("/v1/rules/one", "{\"limit\": 1, \"window\": \"1m\"}");
    String batch =
        "{\"checks\": ["
            + "{\"rule\": \"login\", \"key\": \"a\"},"
            + "{\"rule\": \"one\", \"key\": \"a\"},"
            + "{\"rule\": \"one\", \"key\": \"a\"},"
            + "{\"key\": \"a\", \"limit\": 3, \"window\": \"1s\"}]}";

    ApiServer.Response response = server.post("/v1/check/batch", batch);

    assertThat(response.status()).isEqualTo(429);
    JsonNode body = response.json();
    assertThat(body.get("allowed").asBoolean()).isFalse();
    assertThat(body.get("results")).hasSize(4);
    assertThat(body.get("results").get(0).get("remaining").asLong()).isEqualTo(4);
    assertThat(body.get("results").get(1).get("allowed").asBoolean()).isTrue();
    assertThat(body.get("results").get(2).get("allowed").asBoolean()).isFalse();
    assertThat(body.get("results").get(3).get("rule").isNull()).isTrue();
    assertThat(response.header("RateLimit-Policy")).isEqualTo("\"one\";q=1;w=60");
    assertThat(response.header("Retry-After")).isNotNull();
  }

  @Test
  void batch_allAllowed_is200() {
    ApiServer.Response response =
        server.post(
            "/v1/check/batch",
            "{\"checks\": [{\"rule\": \"login\", \"key\": \"a\"}, {\"rule\": \"login\", \"key\":"
                + " \"b\"}]}");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.json().get("allowed").asBoolean()).isTrue();
  }

  @Test
  void peek_consumesNothing() {
    server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    for (int i = 0; i < 3; i++) {
      ApiServer.Response peek = server.get("/v1/limits/login/k");
      assertThat(peek.status()).isEqualTo(200);
      assertThat(peek.json().get("remaining").asLong()).isEqualTo(4);
      assertThat(peek.header("X-RateLimit-Remaining")).isEqualTo("4");
    }
  }

  @Test
  void peek_keyIsUrlDecoded() {
    server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"user 42@example.com\"}");
    assertThat(
            server.get("/v1/limits/login/user%2042%40example.com").json().get("remaining").asLong())
        .isEqualTo(4);
  }

  @Test
  void reset_withToken_restoresFullCapacity() {
    for (int i = 0; i < 5; i++) {
      server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    }
    assertThat(server.deleteAdmin("/v1/limits/login/k").status()).isEqualTo(204);
    assertThat(server.get("/v1/limits/login/k").json().get("remaining").asLong()).isEqualTo(5);
  }

  @Test
  void rules_putGetListDelete_roundTrip() {
    ApiServer.Response created =
        server.putAdmin(
            "/v1/rules/api",
            "{\"name\": \"api\", \"algorithm\": \"sliding_window\", \"limit\": 100, \"window\":"
                + " \"PT1S\"}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("window").asText()).isEqualTo("1s");
    // A sliding window has neither a burst nor buckets: the answer shows only what it has.
    assertThat(created.json().has("burst")).isFalse();
    assertThat(created.json().has("buckets")).isFalse();

    assertThat(server.putAdmin("/v1/rules/api", "{\"limit\": 200, \"window\": \"1s\"}").status())
        .isEqualTo(200);
    JsonNode api = server.get("/v1/rules/api").json();
    assertThat(api.get("limit").asLong()).isEqualTo(200);
    assertThat(api.get("algorithm").asText()).isEqualTo("sliding_window");
    assertThat(api.get("shadow").asBoolean()).isFalse();
    assertThat(api.get("countDenied").asBoolean()).isFalse();
    // What GET answers can be sent back as it is.
    assertThat(server.putAdmin("/v1/rules/api", api.toString()).status()).isEqualTo(200);

    JsonNode list = server.get("/v1/rules").json().get("rules");
    assertThat(list).extracting(rule -> rule.get("name").asText()).containsExactly("api", "login");

    assertThat(server.deleteAdmin("/v1/rules/api").status()).isEqualTo(204);
    assertThat(server.get("/v1/rules/api").status()).isEqualTo(404);
    assertThat(server.deleteAdmin("/v1/rules/api").status()).isEqualTo(404);
  }

  @Test
  void rules_changedLimit_takesEffectOnNextCheck() {
    server.putAdmin("/v1/rules/login", "{\"limit\": 1, \"window\": \"1m\"}");
    assertThat(server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}").status())
        .isEqualTo(200);
    assertThat(server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}").status())
        .isEqualTo(429);
  }

  @Test
  void health_liveAndReady_areUp() {
    assertThat(server.get("/health/live").json().get("status").asText()).isEqualTo("UP");
    ApiServer.Response ready = server.get("/health/ready");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("status").asText()).isEqualTo("UP");
  }

  @Test
  void ready_probeSaysNo_is503WithDetail() {
    try (ApiServer notReady =
        new ApiServer(null, () -> new ReadinessProbe.Readiness(false, "joining"))) {
      ApiServer.Response ready = notReady.get("/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.json().get("status").asText()).isEqualTo("DOWN");
      assertThat(ready.json().get("detail").asText()).isEqualTo("joining");
    }
  }

  @Test
  void metrics_afterChecks_showDecisionsTimerAndKeys() {
    server.keysOwned.set(42);
    for (int i = 0; i < 6; i++) {
      server.post("/v1/check", "{\"rule\": \"login\", \"key\": \"k\"}");
    }
    server.post("/v1/check", "{\"key\": \"k\", \"limit\": 9, \"window\": \"1s\"}");

    ApiServer.Response metrics = server.get("/metrics");

    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.header("Content-Type")).startsWith("text/plain");
    assertThat(metrics.body())
        .contains("sluice_decisions_total{outcome=\"allowed\",rule=\"login\"} 5.0")
        .contains("sluice_decisions_total{outcome=\"denied\",rule=\"login\"} 1.0")
        .contains("sluice_decisions_total{outcome=\"allowed\",rule=\"~inline\"} 1.0")
        .contains("sluice_check_seconds_bucket{route=\"/v1/check\",status=\"200\"")
        .contains("sluice_check_seconds_count{route=\"/v1/check\",status=\"429\"} 1")
        .contains("sluice_keys 42.0");
  }

  @Test
  void adminToken_none_adminRoutesAreOpen() {
    try (ApiServer open = new ApiServer(null)) {
      ApiServer.Response put =
          open.send(
              HttpRequest.newBuilder(open.uri("/v1/rules/x"))
                  .header("Content-Type", "application/json")
                  .PUT(HttpRequest.BodyPublishers.ofString("{\"limit\": 1, \"window\": \"1s\"}")));
      assertThat(put.status()).isEqualTo(201);
    }
  }

  @Test
  void openApi_isServed() {
    ApiServer.Response openApi = server.get("/openapi.json");
    assertThat(openApi.status()).isEqualTo(200);
    assertThat(openApi.json().get("openapi").asText()).startsWith("3.");
  }

  private static long ceilSeconds(long millis) {
    return (millis + 999) / 1000;
  }
}
