package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.metrics.DecisionMetrics;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests that are not valid HTTP, or exceed the server's limits for lines and headers, are
 * refused by Jetty before Javalin routes them. They still get the error shape of docs/rest-api.md:
 * the right status, {@code Content-Type: application/json}, {@code {"error", "message"}}, no HTML
 * page and no stack trace; and nothing is counted.
 *
 * <p>{@code java.net.http.HttpClient} refuses to send such requests, so they go over a raw socket
 * ({@link RawHttp}). Each case runs on a fresh server with one rule, {@code login} (5 per minute);
 * afterwards the key {@code victim} must still have all 5 permits and no decision may have been
 * recorded.
 */
class MalformedHttpTest {
  private static final String HOST = "Host: 127.0.0.1\r\n";
  private static final String JSON_CHECK = "{\"rule\": \"login\", \"key\": \"victim\"}";

  /**
   * @param name what is wrong, as the test report shows it
   * @param request the bytes sent, as ISO-8859-1 text
   * @param status the expected HTTP status
   * @param error the expected error code
   */
  record Case(String name, String request, int status, String error) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> malformedRequests() {
    return Stream.of(
        new Case(
            "bad percent-encoding in the path",
            "GET /v1/limits/%zz/victim HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "truncated percent-encoding in the path",
            "GET /v1/limits/login/% HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "encoded NUL byte in the path",
            "GET /v1/limits/login/vic%00tim HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "HTTP/1.1 without Host",
            "GET /v1/limits/login/victim HTTP/1.1\r\n\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "absolute URI naming another host",
            "GET http://other/v1/limits/login/victim HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "HEAD with bad percent-encoding (no body)",
            "HEAD /v1/limits/%zz/victim HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "non-ASCII byte in the path",
            "POST /v1/check\u00ff HTTP/1.1\r\n" + HOST + "\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "garbage request line", "GARBAGE\r\n" + HOST + "\r\n", 400, ApiError.MALFORMED_REQUEST),
        new Case(
            "request line without a version",
            "GET /v1/limits/login/victim\r\n" + HOST + "\r\n",
            505,
            ApiError.HTTP_VERSION_NOT_SUPPORTED),
        new Case(
            "unsupported HTTP version",
            "GET /v1/limits/login/victim HTTP/9.9\r\n" + HOST + "\r\n",
            505,
            ApiError.HTTP_VERSION_NOT_SUPPORTED),
        new Case(
            "header line without a colon",
            "GET /v1/limits/login/victim HTTP/1.1\r\n" + HOST + "NoColonHere\r\n\r\n",
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "two different Content-Lengths",
            post("Content-Length: 5\r\nContent-Length: " + JSON_CHECK.length() + "\r\n")
                + JSON_CHECK,
            400,
            ApiError.MALFORMED_REQUEST),
        new Case(
            "bad chunk size",
            post("Transfer-Encoding: chunked\r\n") + "zz\r\n" + JSON_CHECK + "\r\n0\r\n\r\n",
            400,
            ApiError.MALFORMED_JSON),
        new Case(
            "headers over the size limit",
            post("X-Big: " + "b".repeat(64 * 1024) + "\r\nContent-Length: 0\r\n"),
            431,
            ApiError.HEADERS_TOO_LARGE),
        new Case(
            "URI over the size limit",
            "GET /v1/limits/login/" + "k".repeat(64 * 1024) + " HTTP/1.1\r\n" + HOST + "\r\n",
            414,
            ApiError.URI_TOO_LONG));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedRequests")
  void malformedRequest_answersJsonErrorAndCountsNothing(Case bad) {
    try (ApiServer server = new ApiServer()) {
      server.putAdmin("/v1/rules/login", "{\"limit\": 5, \"window\": \"1m\"}");

      RawHttp.Response response = RawHttp.exchange(server.api.port(), bad.request());

      System.out.printf("%-45s %d %s%n", bad.name(), response.status(), response.body());
      assertThat(response.status()).as(response.body()).isEqualTo(bad.status());
      assertThat(response.header("Content-Type")).startsWith("application/json");
      assertThat(response.body()).doesNotContainIgnoringCase("<html");
      if (bad.request().startsWith("HEAD ")) {
        assertThat(response.body()).as("HEAD has no body").isEmpty();
      } else {
        JsonNode body = response.json();
        assertThat(body.size()).as("only error and message: " + body).isEqualTo(2);
        assertThat(body.get("error").asText()).isEqualTo(bad.error());
        assertThat(body.get("message").asText())
            .isNotBlank()
            .doesNotContain("Exception", "org.eclipse", "\tat ");
      }

      assertThat(server.get("/v1/limits/login/victim").json().get("remaining").asLong())
          .as("nothing was counted")
          .isEqualTo(5);
      assertThat(server.registry.find(DecisionMetrics.DECISIONS).counters())
          .allSatisfy(counter -> assertThat(counter.count()).isZero());
    }
  }

  /**
   * A body that ends (the client half-closes) before its declared {@code Content-Length}: the
   * server reads the declared size into one array, and a short read is the client's error, 400,
   * with nothing counted.
   */
  @Test
  void bodyShorterThanItsContentLength_answers400AndCountsNothing() throws Exception {
    try (ApiServer server = new ApiServer()) {
      server.putAdmin("/v1/rules/login", "{\"limit\": 5, \"window\": \"1m\"}");
      String request = post("Content-Length: " + (JSON_CHECK.length() + 10) + "\r\n") + JSON_CHECK;
      byte[] answer;
      try (Socket socket = new Socket("127.0.0.1", server.api.port())) {
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        socket.shutdownOutput();
        answer = socket.getInputStream().readAllBytes();
      }
      RawHttp.Response response = RawHttp.parse(answer);

      assertThat(response.status()).as(response.body()).isEqualTo(400);
      assertThat(response.json().get("error").asText()).isEqualTo(ApiError.MALFORMED_JSON);
      assertThat(response.json().get("message").asText()).contains("declared length");
      assertThat(server.get("/v1/limits/login/victim").json().get("remaining").asLong())
          .isEqualTo(5);
    }
  }

  /** A check whose head ends with {@code headers}, ready for a body. */
  private static String post(String headers) {
    return "POST /v1/check HTTP/1.1\r\n"
        + HOST
        + "Content-Type: application/json\r\n"
        + headers
        + "\r\n";
  }
}
