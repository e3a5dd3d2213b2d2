package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.ReservationId;
import dev.sluice.core.metrics.DecisionMetrics;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad input gets a 4xx with {@code {"error", "message"}}, a message that names what to fix,
 * and counts nothing. Each case runs on a fresh server with one rule, {@code login} (5 per minute),
 * and afterwards the key {@code victim} must still have all 5 permits, no decision may have been
 * recorded, and the rules must be unchanged.
 */
class BadInputTest {

  /**
   * @param name what is wrong, as the test report shows it
   * @param call the request
   * @param status the expected HTTP status
   * @param error the expected error code
   * @param messageMentions text the message must contain so that a human knows what to fix
   */
  record Case(
      String name,
      Function<ApiServer, ApiServer.Answer> call,
      int status,
      String error,
      String messageMentions) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> badInputs() {
    String tooLongKey = "a".repeat(513);
    String tooLongMultibyteKey = "€".repeat(171); // 171 chars, 513 bytes of UTF-8
    String goodCheck = "{\"rule\": \"login\", \"key\": \"victim\"}";
    String oversizeCheck =
        "{\"rule\": \"login\", \"key\": \"victim\", \"pad\": \"" + "x".repeat(70_000) + "\"}";
    return Stream.of(
        check(
            "malformed JSON",
            "{\"rule\": \"login\", \"key\": ",
            400,
            "malformed_json",
            "not valid JSON"),
        check(
            "unclosed object",
            "{\"rule\": \"login\", \"key\": \"victim\"",
            400,
            "malformed_json",
            "expected close marker for Object (start marker at line 1, column 1)"),
        check(
            "NaN as a number",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": NaN}",
            400,
            "malformed_json",
            "Non-standard token 'NaN'"),
        check(
            "a comment",
            "/* one */ " + goodCheck,
            400,
            "malformed_json",
            "maybe a (non-standard) comment?"),
        check("trailing garbage", goodCheck + " x", 400, "malformed_json", "not valid JSON"),
        check("two objects", goodCheck + goodCheck, 400, "malformed_json", "not valid JSON"),
        check("empty body", "", 400, "malformed_json", "empty"),
        check(
            "array instead of object",
            "[" + goodCheck + "]",
            400,
            "malformed_json",
            "must be a JSON object"),
        check("JSON null", "null", 400, "malformed_json", "null"),
        check(
            "unknown field",
            "{\"rule\": \"login\", \"key\": \"victim\", \"permits\": 1}",
            400,
            "unknown_field",
            "'permits'"),
        check(
            "duplicate field",
            "{\"rule\": \"login\", \"key\": \"victim\", \"key\": \"other\"}",
            400,
            "malformed_json",
            "key"),
        check(
            "key is a number",
            "{\"rule\": \"login\", \"key\": 123}",
            400,
            "invalid_field",
            "key: must be a string"),
        check(
            "key is an object",
            "{\"rule\": \"login\", \"key\": {}}",
            400,
            "invalid_field",
            "key: must be a string"),
        check(
            "cost is a string",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": \"1\"}",
            400,
            "invalid_field",
            "cost: must be a whole number"),
        check(
            "cost is a fraction",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": 1.5}",
            400,
            "invalid_field",
            "cost"),
        check(
            "cost is a boolean",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": true}",
            400,
            "invalid_field",
            "cost"),
        check("missing key", "{\"rule\": \"login\"}", 400, "invalid_field", "key: is required"),
        check("empty key", "{\"rule\": \"login\", \"key\": \"\"}", 400, "invalid_field", "key"),
        check(
            "key over 512 bytes",
            "{\"rule\": \"login\", \"key\": \"" + tooLongKey + "\"}",
            400,
            "invalid_field",
            "512 bytes"),
        check(
            "multibyte key over 512 bytes",
            "{\"rule\": \"login\", \"key\": \"" + tooLongMultibyteKey + "\"}",
            400,
            "invalid_field",
            "512 bytes"),
        check(
            "negative cost",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": -1}",
            400,
            "invalid_field",
            "cost: must not be negative"),
        check(
            "cost above capacity",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": 6}",
            400,
            "invalid_field",
            "cost"),
        check("neither rule nor policy", "{\"key\": \"victim\"}", 400, "invalid_field", "rule"),
        check(
            "rule and inline policy",
            "{\"rule\": \"login\", \"key\": \"victim\", \"limit\": 3}",
            400,
            "invalid_field",
            "not both"),
        check(
            "unknown rule",
            "{\"rule\": \"nope\", \"key\": \"victim\"}",
            404,
            "unknown_rule",
            "'nope'"),
        check(
            "rule name with a space",
            "{\"rule\": \"log in\", \"key\": \"victim\"}",
            400,
            "invalid_field",
            "rule"),
        check(
            "limit zero",
            inline("\"limit\": 0, \"window\": \"1m\""),
            400,
            "invalid_field",
            "limit: must be between 1"),
        check(
            "limit negative",
            inline("\"limit\": -5, \"window\": \"1m\""),
            400,
            "invalid_field",
            "limit"),
        check(
            "limit huge",
            inline("\"limit\": 1000000000000, \"window\": \"1m\""),
            400,
            "invalid_field",
            "limit"),
        check(
            "limit beyond 64 bits",
            inline("\"limit\": 99999999999999999999, \"window\": \"1m\""),
            400,
            "invalid_field",
            "limit"),
        check(
            "limit as a string",
            inline("\"limit\": \"10\", \"window\": \"1m\""),
            400,
            "invalid_field",
            "limit: must be a whole number"),
        check(
            "missing window", inline("\"limit\": 10"), 400, "invalid_field", "window: is required"),
        check(
            "missing limit",
            inline("\"window\": \"1m\""),
            400,
            "invalid_field",
            "limit: is required"),
        check(
            "window 0s",
            inline("\"limit\": 10, \"window\": \"0s\""),
            400,
            "invalid_field",
            "window"),
        check(
            "window -1m",
            inline("\"limit\": 10, \"window\": \"-1m\""),
            400,
            "invalid_field",
            "'-1m' is not a duration"),
        check(
            "window abc",
            inline("\"limit\": 10, \"window\": \"abc\""),
            400,
            "invalid_field",
            "'abc' is not a duration"),
        check(
            "window 1 year",
            inline("\"limit\": 10, \"window\": \"365d\""),
            400,
            "invalid_field",
            "window: must be between 1ms and 30d"),
        check(
            "window as a number",
            inline("\"limit\": 10, \"window\": 60"),
            400,
            "invalid_field",
            "window: must be a string"),
        check(
            "unknown algorithm",
            inline("\"limit\": 10, \"window\": \"1m\", \"algorithm\": \"magic\""),
            400,
            "invalid_field",
            "unknown algorithm 'magic'"),
        check(
            "negative burst",
            inline("\"limit\": 10, \"window\": \"1m\", \"burst\": -1"),
            400,
            "invalid_field",
            "burst"),
        check(
            "zero buckets",
            inline("\"limit\": 10, \"window\": \"1m\", \"buckets\": 0"),
            400,
            "invalid_field",
            "buckets"),
        check(
            "burst on a sliding window",
            inline("\"limit\": 10, \"window\": \"1m\", \"burst\": 20"),
            400,
            "invalid_field",
            "burst: applies to token_bucket, gcra and leaky_bucket; sliding_window has no burst"),
        check(
            "buckets on gcra",
            inline("\"limit\": 10, \"window\": \"1m\", \"algorithm\": \"gcra\", \"buckets\": 6"),
            400,
            "invalid_field",
            "buckets: applies to sliding_buckets only; gcra has none"),
        check(
            "shadow as a string",
            inline("\"limit\": 10, \"window\": \"1m\", \"shadow\": \"yes\""),
            400,
            "invalid_field",
            "shadow: must be true or false"),
        new Case(
            // Over a raw socket: the server answers 413 and may close while the body is still
            // being written, which java.net.http reports as a broken pipe instead of the answer.
            "body over 64 KiB",
            s ->
                RawHttp.exchange(
                    s.api.port(),
                    "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nContent-Length: "
                        + oversizeCheck.length()
                        + "\r\n\r\n"
                        + oversizeCheck),
            413,
            "body_too_large",
            "65536 bytes"),
        new Case(
            "content type text/plain",
            s -> s.send(post(s, "/v1/check", "text/plain", goodCheck)),
            415,
            "unsupported_media_type",
            "Content-Type: application/json"),
        new Case(
            "content type form",
            s ->
                s.send(
                    post(
                        s,
                        "/v1/check",
                        "application/x-www-form-urlencoded",
                        "rule=login&key=victim")),
            415,
            "unsupported_media_type",
            "application/x-www-form-urlencoded"),
        new Case(
            "no content type",
            s ->
                s.send(
                    HttpRequest.newBuilder(s.uri("/v1/check"))
                        .POST(HttpRequest.BodyPublishers.ofString(goodCheck))),
            415,
            "unsupported_media_type",
            "no Content-Type"),
        batch(
            "empty batch",
            "{\"checks\": []}",
            400,
            "invalid_field",
            "checks: must hold 1 to 1000 checks, was 0"),
        batch(
            "oversize batch",
            "{\"checks\": ["
                + IntStream.range(0, 1001).mapToObj(i -> goodCheck).collect(Collectors.joining(","))
                + "]}",
            400,
            "invalid_field",
            "was 1001"),
        batch("batch without checks", "{}", 400, "invalid_field", "checks: is required"),
        batch(
            "checks not an array",
            "{\"checks\": {}}",
            400,
            "invalid_field",
            "checks: must be an array"),
        batch(
            "null check in batch",
            "{\"checks\": [" + goodCheck + ", null]}",
            400,
            "invalid_field",
            "checks[1]"),
        batch(
            "bad check after good ones",
            "{\"checks\": ["
                + goodCheck
                + ", "
                + goodCheck
                + ", {\"key\": \"victim\", \"limit\": 0, \"window\": \"1m\"}]}",
            400,
            "invalid_field",
            "checks[2].limit"),
        check(
            "key with an unpaired surrogate",
            "{\"rule\": \"login\", \"key\": \"a\\ud800b\"}",
            400,
            "invalid_field",
            "key: must be valid Unicode"),
        batch(
            "unpaired surrogate in a batch key",
            "{\"checks\": ["
                + goodCheck
                + ", {\"rule\": \"login\", \"key\": \"\\udc00\"}, "
                + goodCheck
                + "]}",
            400,
            "invalid_field",
            "checks[1].key: must be valid Unicode"),
        batch(
            "unknown field in batch element",
            "{\"checks\": ["
                + goodCheck
                + ", {\"rule\": \"login\", \"key\": \"victim\", \"kee\": 1}]}",
            400,
            "unknown_field",
            "checks[1].kee"),
        batch(
            "unknown rule in batch",
            "{\"checks\": [" + goodCheck + ", {\"rule\": \"nope\", \"key\": \"victim\"}]}",
            404,
            "unknown_rule",
            "checks[1].rule"),
        batch(
            "cost above capacity in batch",
            "{\"checks\": ["
                + goodCheck
                + ", {\"rule\": \"login\", \"key\": \"victim\", \"cost\": 99}]}",
            400,
            "invalid_field",
            "checks[1].cost"),
        post(
            "reserve without ttlMs",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"cost\": 2}",
            400,
            "invalid_field",
            "ttlMs: is required"),
        post(
            "reserve with ttlMs 0",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 0}",
            400,
            "invalid_field",
            "ttlMs: must be between 1 and 86400000"),
        post(
            "reserve that would wait",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 1000, \"maxWaitMs\": 5}",
            400,
            "invalid_field",
            "maxWaitMs"),
        post(
            "reserve with a permitId",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 1000, \"permitId\": \"7\"}",
            400,
            "invalid_field",
            "permitId"),
        post(
            "reserve an estimate of 0",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 1000, \"cost\": 0}",
            400,
            "invalid_field",
            "cost"),
        post(
            "reserve above capacity",
            "/v1/reserve",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 1000, \"cost\": 6}",
            400,
            "invalid_field",
            "cost"),
        post(
            "reserve under an unknown rule",
            "/v1/reserve",
            "{\"rule\": \"nope\", \"key\": \"victim\", \"ttlMs\": 1000}",
            404,
            "unknown_rule",
            "'nope'"),
        check(
            "ttlMs on a check",
            "{\"rule\": \"login\", \"key\": \"victim\", \"ttlMs\": 1000}",
            400,
            "invalid_field",
            "ttlMs: is taken by POST /v1/reserve only"),
        post(
            "commit without reservationId",
            "/v1/commit",
            "{\"cost\": 1}",
            400,
            "invalid_field",
            "reservationId: is required"),
        post(
            "commit a made-up reservationId",
            "/v1/commit",
            "{\"reservationId\": \"abc\", \"cost\": 1}",
            400,
            "invalid_field",
            "reservationId: is not an id"),
        post(
            "commit without cost",
            "/v1/commit",
            "{\"reservationId\": \"" + UNKNOWN_RESERVATION + "\"}",
            400,
            "invalid_field",
            "cost: is required"),
        post(
            "commit a negative cost",
            "/v1/commit",
            "{\"reservationId\": \"" + UNKNOWN_RESERVATION + "\", \"cost\": -1}",
            400,
            "invalid_field",
            "cost: must not be negative"),
        post(
            "commit with an unknown field",
            "/v1/commit",
            "{\"reservationId\": \"" + UNKNOWN_RESERVATION + "\", \"cost\": 1, \"key\": \"x\"}",
            400,
            "unknown_field",
            "'key'"),
        post(
            "commit a reservation the key never held",
            "/v1/commit",
            "{\"reservationId\": \"" + UNKNOWN_RESERVATION + "\", \"cost\": 4}",
            404,
            "reservation_unknown",
            "no reservation 12345 is open"),
        new Case(
            "admin PUT without token",
            s -> s.send(put(s, "/v1/rules/new", null, "{\"limit\": 1, \"window\": \"1s\"}")),
            401,
            "unauthorized",
            "Authorization: Bearer"),
        new Case(
            "admin PUT with wrong token",
            s ->
                s.send(
                    put(s, "/v1/rules/new", "Bearer wrong", "{\"limit\": 1, \"window\": \"1s\"}")),
            403,
            "forbidden",
            "not the admin token"),
        new Case(
            "admin PUT with Basic auth",
            s ->
                s.send(
                    put(
                        s,
                        "/v1/rules/new",
                        "Basic YWRtaW46YWRtaW4=",
                        "{\"limit\": 1, \"window\": \"1s\"}")),
            401,
            "unauthorized",
            "Bearer"),
        new Case(
            "admin DELETE rule with wrong token",
            s ->
                s.send(
                    HttpRequest.newBuilder(s.uri("/v1/rules/login"))
                        .header("Authorization", "Bearer nope")
                        .DELETE()),
            403,
            "forbidden",
            "admin token"),
        new Case(
            "admin reset without token",
            s -> s.send(HttpRequest.newBuilder(s.uri("/v1/limits/login/victim")).DELETE()),
            401,
            "unauthorized",
            "admin"),
        new Case(
            "PUT rule with limit 0",
            s -> s.putAdmin("/v1/rules/new", "{\"limit\": 0, \"window\": \"1s\"}"),
            400,
            "invalid_field",
            "limit"),
        new Case(
            "PUT rule without window",
            s -> s.putAdmin("/v1/rules/new", "{\"limit\": 3}"),
            400,
            "invalid_field",
            "window: is required"),
        new Case(
            "PUT rule with mismatched name",
            s ->
                s.putAdmin(
                    "/v1/rules/new", "{\"name\": \"other\", \"limit\": 1, \"window\": \"1s\"}"),
            400,
            "invalid_field",
            "does not match"),
        new Case(
            "PUT rule with bad name",
            s -> s.putAdmin("/v1/rules/bad%20name", "{\"limit\": 1, \"window\": \"1s\"}"),
            400,
            "invalid_field",
            "name"),
        new Case(
            "PUT rule with unknown field",
            s -> s.putAdmin("/v1/rules/new", "{\"limit\": 1, \"window\": \"1s\", \"rate\": 5}"),
            400,
            "unknown_field",
            "'rate'"),
        new Case(
            "peek unknown rule",
            s -> s.get("/v1/limits/nope/victim"),
            404,
            "unknown_rule",
            "'nope'"),
        new Case(
            "peek key over 512 bytes",
            s -> s.get("/v1/limits/login/" + tooLongKey),
            400,
            "invalid_field",
            "key"),
        new Case(
            "GET unknown rule", s -> s.get("/v1/rules/nope"), 404, "unknown_rule", "GET /v1/rules"),
        new Case(
            "unknown route", s -> s.get("/v1/nothing-here"), 404, "not_found", "/openapi.json"),
        new Case("wrong method", s -> s.get("/v1/check"), 405, "method_not_allowed", "GET"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInput_answersClearErrorAndCountsNothing(Case badInput) {
    try (ApiServer server = new ApiServer()) {
      server.putAdmin("/v1/rules/login", "{\"limit\": 5, \"window\": \"1m\"}");
      List<String> rulesBefore = ruleNames(server);

      ApiServer.Answer response = badInput.call().apply(server);

      assertThat(response.status()).as(response.body()).isEqualTo(badInput.status());
      assertThat(response.header("Content-Type")).startsWith("application/json");
      JsonNode body = response.json();
      assertThat(body.size()).as("only error and message: " + body).isEqualTo(2);
      assertThat(body.get("error").asText()).isEqualTo(badInput.error());
      String message = body.get("message").asText();
      System.out.printf("%-40s %d %s%n", badInput.name(), response.status(), body);
      assertThat(message).contains(badInput.messageMentions());
      assertThat(message)
          .doesNotContain(
              "Exception",
              "dev.sluice",
              "com.fasterxml",
              "\tat ",
              "Source:",
              "StreamReadFeature",
              "enable",
              "Feature");

      assertThat(server.get("/v1/limits/login/victim").json().get("remaining").asLong())
          .as("nothing was counted")
          .isEqualTo(5);
      assertThat(server.registry.find(DecisionMetrics.DECISIONS).counters())
          .allSatisfy(counter -> assertThat(counter.count()).isZero());
      assertThat(ruleNames(server)).isEqualTo(rulesBefore);
    }
  }

  private static List<String> ruleNames(ApiServer server) {
    return server.get("/v1/rules").json().get("rules").findValuesAsText("name");
  }

  /** A well-formed id of a reservation nobody made: open until the end of time, if it existed. */
  private static final String UNKNOWN_RESERVATION =
      new ReservationId(PolicyRef.rule("login"), "victim", 12345, Long.MAX_VALUE).encode();

  private static Case post(
      String name, String path, String body, int status, String error, String mentions) {
    return new Case(name, s -> s.post(path, body), status, error, mentions);
  }

  private static Case check(String name, String body, int status, String error, String mentions) {
    return new Case(name, s -> s.post("/v1/check", body), status, error, mentions);
  }

  private static Case batch(String name, String body, int status, String error, String mentions) {
    return new Case(name, s -> s.post("/v1/check/batch", body), status, error, mentions);
  }

  private static String inline(String policyFields) {
    return "{\"key\": \"victim\", " + policyFields + "}";
  }

  private static HttpRequest.Builder post(
      ApiServer server, String path, String contentType, String body) {
    return HttpRequest.newBuilder(server.uri(path))
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpRequest.Builder put(
      ApiServer server, String path, String authorization, String body) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(server.uri(path))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body));
    return authorization == null ? builder : builder.header("Authorization", authorization);
  }
}
