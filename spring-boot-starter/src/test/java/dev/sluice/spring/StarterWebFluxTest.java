package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.middleware.SluiceWebFilter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;

/**
 * The starter in a WebFlux application, embedded, over real HTTP: gates from {@code sluice.gates}
 * as WebFlux filters (a limit, a shadow ban the handler reads), and a Spring Cloud Gateway route
 * under a concurrency rule, whose permit is given back when the exchange through the gateway ends.
 */
@SpringBootTest(
    classes = StarterWebFluxTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
@ActiveProfiles("webflux")
class StarterWebFluxTest {
  /** Holds requests to /slow/** until the test releases them. */
  private static final StubUpstream UPSTREAM = StubUpstream.holding("/slow/");

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import({OpenWebFluxSecurity.class, Invites.class, Mailer.class})
  static class App {}

  /** The side effect a shadow ban skips. */
  @Component
  static class Mailer {
    final List<String> sent = new CopyOnWriteArrayList<>();
  }

  @RestController
  static class Invites {
    private final Mailer mailer;

    Invites(Mailer mailer) {
      this.mailer = mailer;
    }

    @GetMapping("/hello")
    String hello() {
      return "hello";
    }

    @PostMapping("/invites")
    String invite(ServerWebExchange exchange) {
      if (!SluiceWebFilter.shadowBanned(exchange)) {
        mailer.sent.add(exchange.getRequest().getHeaders().getFirst("X-User"));
      }
      return "invited";
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("sluice.embedded.port", Http::freePort);
    GatewayTestRoutes.rateLimited(registry, 0, "slow", "one-at-a-time", UPSTREAM);
  }

  @LocalServerPort int port;
  @Autowired Mailer mailer;

  @AfterAll
  static void stop() {
    UPSTREAM.close();
  }

  @Test
  void gate_thirdRequestOfTwoPerMinute_is429WithHeadersAndJson() {
    Http http = new Http(port);
    for (int i = 1; i <= 2; i++) {
      HttpResponse<String> admitted = http.get("/hello");
      assertThat(admitted.statusCode()).as("request %d", i).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("hello");
      assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=2;w=60");
    }
    HttpResponse<String> denied = http.get("/hello");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(denied.body()).contains("\"error\":\"rate_limited\"", "\"rule\":\"hello\"");
  }

  @Test
  void gate_shadowBan_answersAsASuccess_andTheHandlerSkipsTheSideEffect() {
    Http http = new Http(port);
    for (int i = 1; i <= 4; i++) {
      HttpResponse<String> answer = http.post("/invites", "X-User", "mallory");
      assertThat(answer.statusCode()).as("invitation %d", i).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("invited");
      assertThat(answer.headers().firstValue("RateLimit")).isEmpty();
    }
    assertThat(mailer.sent).containsExactly("mallory", "mallory");
    assertThat(http.post("/invites", "X-User", "alice").statusCode()).isEqualTo(200);
    assertThat(mailer.sent).containsExactly("mallory", "mallory", "alice");
  }

  @Test
  void gatewayRoute_concurrencyPermit_isGivenBackWhenTheExchangeEnds() throws Exception {
    Http http = new Http(port);
    CompletableFuture<HttpResponse<String>> first =
        HttpClient.newHttpClient()
            .sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/slow/first"))
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(UPSTREAM.awaitHeld(Duration.ofSeconds(20)))
        .as("the first reached the upstream")
        .isTrue();

    HttpResponse<String> second = http.get("/slow/second");
    assertThat(second.statusCode()).as("the one permit is held").isEqualTo(429);
    assertThat(second.headers().firstValue("RateLimit-Policy")).isPresent();

    UPSTREAM.release();
    assertThat(first.get(20, TimeUnit.SECONDS).body()).isEqualTo("upstream /slow/first");
    HttpResponse<String> third = awaitAdmitted(http, "/slow/third");
    assertThat(third.body()).isEqualTo("upstream /slow/third");
  }

  /**
   * The first exchange's end and its permit's release race the client reading its answer: asks
   * again for at most five seconds.
   */
  private static HttpResponse<String> awaitAdmitted(Http http, String path)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    HttpResponse<String> answer = http.get(path);
    while (answer.statusCode() == 429 && System.nanoTime() < deadline) {
      Thread.sleep(50);
      answer = http.get(path);
    }
    assertThat(answer.statusCode()).as("the permit was given back").isEqualTo(200);
    return answer;
  }
}
