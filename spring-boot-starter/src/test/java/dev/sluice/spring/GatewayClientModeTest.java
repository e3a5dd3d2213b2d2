package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Cloud Gateway (WebFlux) route limited by Sluice, the application a client of a grid
 * member this test starts and stops: real HTTP through the gateway to a stub upstream, the headers,
 * the rule's failure policy while the grid is down, and the health indicator going DOWN and UP.
 */
@SpringBootTest(
    classes = GatewayClientModeTest.GatewayApp.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
@Tag("realtime")
class GatewayClientModeTest {
  private static final String CLUSTER = "starter-gateway-" + UUID.randomUUID();
  private static final int MEMBER_PORT = Http.freePort();
  private static HazelcastInstance member = startMember();
  private static final StubUpstream UPSTREAM = StubUpstream.answering();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(OpenWebFluxSecurity.class)
  static class GatewayApp {}

  @DynamicPropertySource
  static void gateway(DynamicPropertyRegistry registry) {
    registry.add("sluice.mode", () -> "client");
    registry.add("sluice.cluster-name", () -> CLUSTER);
    registry.add("sluice.client.addresses[0]", () -> "127.0.0.1:" + MEMBER_PORT);
    registry.add("sluice.call-timeout", () -> "1s");
    registry.add("sluice.failure-policies.strict", () -> "fail_closed");
    // A token bucket: the member decides on the system clock, and a sliding window's count is an
    // estimate across a wall-clock minute, which the four counted requests straddle once in a few
    // hundred runs. A permit comes back every 20 s; the quota advertised is 3 per 60 s all the
    // same.
    registry.add("sluice.rules[0].name", () -> "greet");
    registry.add("sluice.rules[0].algorithm", () -> "token_bucket");
    registry.add("sluice.rules[0].limit", () -> "3");
    registry.add("sluice.rules[0].window", () -> "1m");
    registry.add("sluice.rules[1].name", () -> "strict");
    registry.add("sluice.rules[1].limit", () -> "100");
    registry.add("sluice.rules[1].window", () -> "1m");
    registry.add("sluice.rules[2].name", () -> "relaxed");
    registry.add("sluice.rules[2].limit", () -> "100");
    registry.add("sluice.rules[2].window", () -> "1m");
    registry.add("management.endpoint.health.show-details", () -> "always");
    String[] rules = {"greet", "strict", "relaxed"};
    for (int i = 0; i < rules.length; i++) {
      GatewayTestRoutes.rateLimited(registry, i, rules[i], rules[i], UPSTREAM);
    }
  }

  @LocalServerPort int port;

  @AfterAll
  static void stop() {
    UPSTREAM.close();
    member.shutdown();
  }

  @Test
  void route_limitsThroughTheGateway_thenTheGridGoesAndComesBack() throws Exception {
    Http http = new Http(port);
    for (int i = 1; i <= 3; i++) {
      HttpResponse<String> admitted = http.get("/greet/x");
      assertThat(admitted.statusCode()).as("request %d", i).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("upstream /greet/x");
      assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"greet\";q=3;w=60");
      assertThat(admitted.headers().firstValue("X-RateLimit-Remaining"))
          .hasValue(Integer.toString(3 - i));
    }
    HttpResponse<String> denied = http.get("/greet/x");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"greet\";r=0;");
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(health(http)).contains("\"status\":\"UP\"");

    member.shutdown();
    awaitHealth(http, body -> body.contains("\"sluice\":{\"details\":{\"state\":\"disconnected\""));
    // The grid is away: each rule's failure policy answers, not a silent pass; fail-closed with
    // the gate's 503, not the filter's 429: the client did nothing wrong.
    HttpResponse<String> closed = http.get("/strict/x");
    assertThat(closed.statusCode()).isEqualTo(503);
    assertThat(closed.headers().firstValue("Retry-After")).isPresent();
    assertThat(closed.headers().firstValue("RateLimit")).isEmpty();
    // (Not greet: its recent denial of this client is still answered locally, never more
    // permissive than the grid was.)
    HttpResponse<String> open = http.get("/relaxed/y");
    assertThat(open.statusCode()).isEqualTo(200);
    assertThat(open.body()).isEqualTo("upstream /relaxed/y");

    member = startMember();
    // UP once connected and the breaker closed, without traffic: the check itself asks the grid.
    awaitHealth(
        http,
        body ->
            body.contains(
                "\"sluice\":{\"details\":{\"state\":\"connected\",\"gridUnavailable\":false},"
                    + "\"status\":\"UP\"}"));
  }

  private static String health(Http http) {
    return http.get("/actuator/health").body();
  }

  /** Polls the health endpoint until {@code expected}, for at most a minute. */
  private static void awaitHealth(Http http, Predicate<String> expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    String body = health(http);
    while (!expected.test(body) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      body = health(http);
    }
    assertThat(body).matches(expected);
  }

  private static HazelcastInstance startMember() {
    SluiceProperties properties =
        new Binder(
                new MapConfigurationPropertySource(
                    Map.of(
                        "sluice.cluster-name",
                        CLUSTER,
                        "sluice.embedded.port",
                        String.valueOf(MEMBER_PORT))))
            .bindOrCreate("sluice", SluiceProperties.class);
    return Hazelcast.newHazelcastInstance(SluiceAutoConfiguration.memberConfig(properties));
  }
}
