package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code HEAD} on every GET route answers as {@code GET} does, with the same status and content
 * type, and no body (RFC 9110 §9.3.2): monitors and load balancers that probe with HEAD see the
 * same answer a GET gets.
 */
class HeadRequestTest {
  private final ApiServer server = new ApiServer();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void head_everyGetRoute_answersLikeGetWithoutABody() {
    server.limiter.rules().put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
    for (String path :
        List.of(
            "/v1/rules",
            "/v1/rules/login",
            "/v1/rules/missing",
            "/v1/limits/login/k",
            "/health/live",
            "/health/ready",
            "/metrics",
            "/openapi.json")) {
      ApiServer.Response get = server.get(path);
      ApiServer.Response head =
          server.send(
              HttpRequest.newBuilder(server.uri(path))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody()));

      assertThat(head.status()).as("HEAD " + path).isEqualTo(get.status());
      assertThat(head.header("Content-Type"))
          .as("HEAD " + path)
          .isEqualTo(get.header("Content-Type"));
      assertThat(head.body()).as("HEAD " + path).isEmpty();
      assertThat(get.body()).as("GET " + path).isNotEmpty();
    }
  }
}
