package dev.sluice.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.LoneNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example as a client of a grid node started as a separate process ({@code java -jar
 * sluice-node.jar}), with the profile {@code client} of docs/spring.md: it limits requests, {@code
 * /actuator/prometheus} shows the decisions, and its health goes DOWN when the node is killed and
 * UP again when the node is back, after which it limits again by its own rules.
 */
@Tag("multiprocess")
class ClientModeNodeProcessTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void clientOfANodeProcess_limits_andItsHealthFollowsTheNode() throws Exception {
    Path logs = Files.createDirectories(Path.of("target", "client-mode-node"));
    try (LoneNode node = LoneNode.start(logs, Duration.ofMinutes(2));
        ConfigurableApplicationContext app =
            new SpringApplicationBuilder(ExampleApplication.class)
                .profiles("client")
                .run(
                    "--server.port=0",
                    "--server.address=127.0.0.1",
                    "--sluice.cluster-name=" + node.clusterName(),
                    "--sluice.client.addresses=" + node.memberAddress(),
                    "--management.endpoint.health.show-details=always")) {
      int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
      for (int i = 1; i <= 3; i++) {
        assertThat(get(port, "/hello").statusCode()).as("request %d", i).isEqualTo(200);
      }
      HttpResponse<String> denied = get(port, "/hello");
      assertThat(denied.statusCode()).isEqualTo(429);
      assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=3;w=60");
      assertThat(get(port, "/actuator/prometheus").body())
          .contains("sluice_decisions_total{outcome=\"allowed\",rule=\"hello\"} 3.0")
          .contains("sluice_decisions_total{outcome=\"denied\",rule=\"hello\"} 1.0");
      assertThat(get(port, "/actuator/health").body()).contains("\"status\":\"UP\"");

      node.kill();
      awaitHealth(port, body -> body.startsWith("{\"components\"") && body.contains("\"DOWN\""));
      // The grid is away: the rule's failure policy (fail_open by default) answers.
      HttpResponse<String> failedOpen =
          send(
              HttpRequest.newBuilder(uri(port, "/invites?email=n@example.com"))
                  .header("X-User", "newcomer")
                  .POST(HttpRequest.BodyPublishers.noBody()));
      assertThat(failedOpen.statusCode()).isEqualTo(200);

      node.restart(Duration.ofMinutes(2));
      awaitHealth(port, body -> body.endsWith("\"status\":\"UP\"}"));
      // The restarted grid is empty: the application puts its rules back, and limits by them.
      HttpResponse<String> again = awaitPolicy(port);
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(again.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
    }
  }

  /** Polls the health endpoint until {@code expected}, for at most a minute. */
  private static void awaitHealth(int port, Predicate<String> expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    String body = get(port, "/actuator/health").body();
    while (!expected.test(body) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      body = get(port, "/actuator/health").body();
    }
    assertThat(body).matches(expected);
  }

  /** Asks /hello until an answer carries the rule's headers again, for at most 30 seconds. */
  private static HttpResponse<String> awaitPolicy(int port) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    HttpResponse<String> answer = get(port, "/hello");
    while (answer.headers().firstValue("RateLimit-Policy").isEmpty()
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
      answer = get(port, "/hello");
    }
    assertThat(answer.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=3;w=60");
    return answer;
  }

  private static HttpResponse<String> get(int port, String path) {
    return send(HttpRequest.newBuilder(uri(port, path)));
  }

  private static URI uri(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
          request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
