package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.Rule;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Base64;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/release} gives back only what the caller shows it holds (docs/rest-api.md,
 * "Giving permits back"): every way of asking, without proof and with wrong, altered, replayed or
 * expired proof, is answered with a clear status and code, and a peek shows that nothing changed;
 * with the right proof it frees.
 */
class ReleaseProofTest {
  private ApiServer server;

  @BeforeEach
  void start() {
    server = new ApiServer();
    server.limiter.rules().put(new Rule("api", Policy.of(5, Duration.ofMinutes(1))));
    server
        .limiter
        .rules()
        .put(
            new Rule(
                "reported",
                Policy.builder()
                    .limit(5)
                    .window(Duration.ofMinutes(1))
                    .release(Policy.Release.OPEN)
                    .build()));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void bareCount_withoutTheAdminToken_is401_withAWrongOne403_andFreesNothing() {
    takeThree("api", "k");

    ApiServer.Response bare = release("{\"rule\": \"api\", \"key\": \"k\", \"cost\": 2}", null);
    assertThat(bare.status()).isEqualTo(401);
    assertThat(bare.json().get("error").asText()).isEqualTo("proof_required");
    assertThat(bare.header("WWW-Authenticate")).startsWith("Bearer");
    assertThat(bare.json().get("message").asText()).contains("receipt").contains("admin token");

    ApiServer.Response wrongToken =
        release("{\"rule\": \"api\", \"key\": \"k\", \"cost\": 2}", "not-the-token");
    assertThat(wrongToken.status()).isEqualTo(403);
    assertThat(wrongToken.json().get("error").asText()).isEqualTo("forbidden");
    assertThat(remaining("api", "k")).as("nothing freed").isEqualTo(2);

    ApiServer.Response admin =
        release("{\"rule\": \"api\", \"key\": \"k\", \"cost\": 2}", ApiServer.TOKEN);
    assertThat(admin.status()).isEqualTo(200);
    assertThat(remaining("api", "k")).isEqualTo(4);
  }

  @Test
  void bareCount_onARuleThatOpensItsReleases_needsNoToken() {
    takeThree("reported", "k");

    ApiServer.Response open =
        release("{\"rule\": \"reported\", \"key\": \"k\", \"cost\": 2}", null);

    assertThat(open.status()).isEqualTo(200);
    assertThat(open.json().get("remaining").asLong()).isEqualTo(4);
  }

  @Test
  void receipt_freesOnce_thenReplayIs409_andNothingChanges() {
    String receipt = takeThree("api", "k");

    ApiServer.Response given = release("{\"receipt\": \"" + receipt + "\"}", null);
    assertThat(given.status()).isEqualTo(200);
    assertThat(given.json().get("remaining").asLong()).isEqualTo(5);
    assertThat(given.json().get("rule").asText()).isEqualTo("api");
    assertThat(given.header("RateLimit-Policy")).isEqualTo("\"api\";q=5;w=60");

    server.post("/v1/check", "{\"rule\": \"api\", \"key\": \"k\"}");
    ApiServer.Response replay = release("{\"receipt\": \"" + receipt + "\"}", null);
    assertThat(replay.status()).isEqualTo(409);
    assertThat(replay.json().get("error").asText()).isEqualTo("receipt_spent");
    assertThat(remaining("api", "k")).as("nothing freed").isEqualTo(4);
  }

  @Test
  void receipt_alteredForgedOrMalformed_is403Or400_andFreesNothing() {
    String receipt = takeThree("api", "k");
    byte[] bytes = Base64.getUrlDecoder().decode(receipt);
    bytes[8] ^= 1; // the cost, 3 → 2
    String altered = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Receipt genuine = Receipt.parse(receipt);
    String forged =
        Receipt.issue(
                genuine.ref(),
                genuine.subject(),
                3,
                genuine.admittedAtNanos(),
                0,
                genuine.number(),
                ReceiptKey.random())
            .encode();

    for (String proof : new String[] {altered, forged}) {
      ApiServer.Response refused = release("{\"receipt\": \"" + proof + "\"}", null);
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.json().get("error").asText()).isEqualTo("receipt_not_issued_here");
    }
    ApiServer.Response malformed = release("{\"receipt\": \"AQAB\"}", null);
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.json().get("message").asText())
        .isEqualTo("receipt: is not a receipt a check answered");
    ApiServer.Response withCost =
        release("{\"receipt\": \"" + receipt + "\", \"cost\": 5}", ApiServer.TOKEN);
    assertThat(withCost.status()).isEqualTo(400);
    assertThat(withCost.json().get("message").asText()).startsWith("cost: is not taken with");
    assertThat(remaining("api", "k")).as("nothing freed").isEqualTo(2);
  }

  @Test
  void receipt_afterItsWindow_is410_andFreesNothing() {
    server.clock.advance(Duration.ofSeconds(59)); // 00:00:59, the last second of the minute
    String receipt = takeThree("api", "k");
    server.clock.advance(Duration.ofSeconds(1)); // 00:01:00: the window of the admission ended
    long remaining = remaining("api", "k");

    ApiServer.Response late = release("{\"receipt\": \"" + receipt + "\"}", null);

    assertThat(late.status()).isEqualTo(410);
    assertThat(late.json().get("error").asText()).isEqualTo("receipt_expired");
    assertThat(remaining("api", "k")).isEqualTo(remaining);
  }

  @Test
  void receipt_ofAnInlineCheck_givesBackOnItsKey_andAnInlinePolicyNeverOpensReleases() {
    String inline = "{\"key\": \"k\", \"limit\": 4, \"window\": \"1m\", \"cost\": 3}";
    String receipt = server.post("/v1/check", inline).json().get("receipt").asText();

    ApiServer.Response given = release("{\"receipt\": \"" + receipt + "\"}", null);
    assertThat(given.status()).isEqualTo(200);
    assertThat(given.json().get("remaining").asLong()).isEqualTo(4);

    ApiServer.Response open =
        server.post(
            "/v1/check",
            "{\"key\": \"k\", \"limit\": 4, \"window\": \"1m\", \"release\": \"open\"}");
    assertThat(open.status()).isEqualTo(400);
    assertThat(open.json().get("message").asText()).startsWith("release: 'open' is a rule's");
  }

  @Test
  void receipt_onOtherRoutes_isRefused() {
    String receipt = takeThree("api", "k");
    ApiServer.Response check =
        server.post(
            "/v1/check", "{\"rule\": \"api\", \"key\": \"k\", \"receipt\": \"" + receipt + "\"}");
    assertThat(check.status()).isEqualTo(400);
    assertThat(check.json().get("message").asText())
        .startsWith("receipt: is taken by POST /v1/release only");
  }

  /** Takes three permits of {@code key} under {@code rule}; answers the check's receipt. */
  private String takeThree(String rule, String key) {
    ApiServer.Response taken =
        server.post(
            "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"" + key + "\", \"cost\": 3}");
    assertThat(taken.status()).isEqualTo(200);
    return taken.json().get("receipt").asText();
  }

  private ApiServer.Response release(String body, @Nullable String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(server.uri("/v1/release"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return server.send(request);
  }

  private long remaining(String rule, String key) {
    return server.get("/v1/limits/" + rule + "/" + key).json().get("remaining").asLong();
  }
}
