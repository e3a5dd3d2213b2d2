package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Policy;
import dev.sluice.core.Scope.OnHomeUnreachable;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.RuleRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a Spring MVC application, embedded in the member Spring Boot makes, over real
 * HTTP: gates from YAML (before and after Spring Security), {@code @RateLimited} services (a shadow
 * ban among them), a hot-reloaded rules file, a Gateway Server MVC route, Prometheus, the Actuator
 * endpoint and the health indicator. One context for all of it; each test uses keys of its own.
 */
@SpringBootTest(
    classes = StarterMvcApp.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("mvc")
class StarterMvcTest {
  private static final String CLUSTER = "starter-mvc-" + UUID.randomUUID();
  private static final Path RULES_FILE = rulesFile();
  private static final StubUpstream UPSTREAM = StubUpstream.answering();

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("test.member-port", Http::freePort);
    registry.add("test.cluster-name", () -> CLUSTER);
    registry.add("test.upstream", UPSTREAM::uri);
    registry.add("sluice.rules-file", RULES_FILE::toString);
  }

  @LocalServerPort int port;
  @Autowired ApplicationContext context;
  @Autowired StarterMvcApp.Mailer mailer;

  @AfterAll
  static void stop() throws IOException {
    UPSTREAM.close();
    Files.deleteIfExists(RULES_FILE);
  }

  private Http http() {
    return new Http(port);
  }

  @Test
  void gate_fourthRequestOfThreePerMinute_is429WithHeadersAndJson() {
    for (int i = 1; i <= 3; i++) {
      HttpResponse<String> admitted = http().get("/hello");
      assertThat(admitted.statusCode()).as("request %d", i).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("hello");
      assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=3;w=60");
      assertThat(admitted.headers().firstValue("X-RateLimit-Remaining"))
          .hasValue(Integer.toString(3 - i));
    }
    HttpResponse<String> denied = http().get("/hello");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("RateLimit"))
        .get()
        .asString()
        .startsWith("\"hello\";r=0;t=");
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(denied.body()).contains("\"error\":\"rate_limited\"", "\"rule\":\"hello\"");
  }

  @Test
  void bootsOwnHazelcastMember_isTheOneMemberSluiceDecidesOn() {
    assertThat(context.getBeansOfType(HazelcastInstance.class))
        .containsOnlyKeys("hazelcastInstance");
    HazelcastInstance member = context.getBean(HazelcastInstance.class);
    assertThat(member.getCluster().getMembers()).hasSize(1);
    assertThat(Hazelcast.getAllHazelcastInstances())
        .filteredOn(instance -> instance.getConfig().getClusterName().equals(CLUSTER))
        .containsExactly(member);
    // Sluice's rules and states live in it: its serializers and maps were added before it started.
    assertThat(member.getMap(GridNames.RULES_MAP).containsKey("hello")).isTrue();
    http().post("/invite/member-probe");
    assertThat(member.getMap(GridNames.STATE_MAP).size()).isPositive();
  }

  @Test
  void rulesFile_editedWhileRunning_theGateLimitsByTheNewRule() throws Exception {
    assertThat(http().get("/reloaded").headers().firstValue("RateLimit-Policy"))
        .hasValue("\"reloaded\";q=2;w=60");
    Files.writeString(RULES_FILE, "rules:\n  - name: reloaded\n    limit: 7\n    window: 1m\n");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Optional<String> policy = http().get("/reloaded").headers().firstValue("RateLimit-Policy");
    while (!policy.equals(Optional.of("\"reloaded\";q=7;w=60")) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      policy = http().get("/reloaded").headers().firstValue("RateLimit-Policy");
    }
    assertThat(policy).hasValue("\"reloaded\";q=7;w=60");
  }

  @Test
  void gatewayMvcRoute_sluiceRateLimitFromYaml_limitsTheRouteWithHeaders() {
    for (int i = 1; i <= 2; i++) {
      HttpResponse<String> admitted = http().get("/proxied/x");
      assertThat(admitted.statusCode()).as("request %d", i).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("upstream /proxied/x");
      assertThat(admitted.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"proxied\";q=2;w=60");
    }
    HttpResponse<String> denied = http().get("/proxied/x");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(denied.body()).contains("\"error\":\"rate_limited\"", "\"rule\":\"proxied\"");
  }

  @Test
  void rateLimited_underShadowBan_theCallerSeesSuccess_andTheAnnotatedMethodDoesNotRun() {
    for (int i = 1; i <= 4; i++) {
      HttpResponse<String> answer = http().post("/welcome/mallory");
      assertThat(answer.statusCode()).as("welcome %d", i).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("welcome sent");
    }
    assertThat(mailer.sent()).containsExactly("mallory", "mallory");
    http().post("/welcome/trent");
    assertThat(mailer.sent()).containsExactly("mallory", "mallory", "trent");
  }

  @Test
  void gate_ruleOfTwoLimits_namesTheShortLimitWithItsOwnReset() {
    http().get("/payments");
    http().get("/payments");
    HttpResponse<String> denied = http().get("/payments");
    assertThat(denied.statusCode()).isEqualTo(429);
    // The twenty seconds' limit decided: t is when it is whole again, not the day's reset. Its
    // bucket is whole 20 s after the first admission, a permit back every 10 s: at most 20 s.
    assertThat(denied.headers().firstValue("RateLimit").orElseThrow())
        .matches("\"payments-20s\";r=0;t=([1-9]|1[0-9]|20)");
  }

  @Test
  void gateBeforeSecurity_countsRequestsSecurityRefuses() {
    String[] noPassword = {};
    assertThat(http().get("/before/account", noPassword).statusCode()).isEqualTo(401);
    assertThat(http().get("/before/account", noPassword).statusCode()).isEqualTo(401);
    // The two refused ones were counted: even a right password is now limited.
    HttpResponse<String> third = http().get("/before/account", Http.basic("alice", "a"));
    assertThat(third.statusCode()).isEqualTo(429);
  }

  @Test
  void gateAfterSecurity_countsOnlyAuthenticatedRequests_perPrincipal() {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> refused = http().get("/after/account");
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
    }
    assertThat(http().get("/after/account", Http.basic("alice", "a")).statusCode()).isEqualTo(200);
    assertThat(http().get("/after/account", Http.basic("alice", "a")).statusCode()).isEqualTo(200);
    assertThat(http().get("/after/account", Http.basic("alice", "a")).statusCode()).isEqualTo(429);
    // Keyed by the principal: bob has his own budget.
    assertThat(http().get("/after/account", Http.basic("bob", "b")).statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimited_thirdInvite_throwsAndTheDefaultHandlerAnswers429WithHeaders() {
    assertThat(http().post("/invite/carol").body()).isEqualTo("invited carol");
    assertThat(http().post("/invite/carol").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http().post("/invite/carol");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"invites\";q=2;w=60");
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(denied.body()).contains("\"rule\":\"invites\"");
    assertThat(http().post("/invite/dave").statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimited_withFallback_deniedCallAnswersTheFallback() {
    assertThat(http().post("/digest/erin").body()).isEqualTo("digest for erin");
    assertThat(http().post("/digest/erin").body()).isEqualTo("digest for erin");
    HttpResponse<String> third = http().post("/digest/erin");
    assertThat(third.statusCode()).isEqualTo(200);
    assertThat(third.body()).isEqualTo("digest for erin later: invites");
  }

  @Test
  void prometheus_showsTheDecisionsUnderTheNodesNames() {
    http().post("/invite/prometheus");
    String metrics = http().get("/actuator/prometheus").body();
    assertThat(metrics).containsPattern("sluice_decisions_total\\{.*rule=\"invites\".*\\} [1-9]");
    assertThat(metrics).contains("outcome=\"allowed\"");
  }

  @Test
  void health_isUpWithTheGridState() {
    HttpResponse<String> health = http().get("/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body())
        .contains(
            "\"sluice\":{\"details\":{\"state\":\"connected\",\"gridUnavailable\":false},"
                + "\"status\":\"UP\"}");
  }

  @Test
  void globalRule_fromYaml_reachesTheGridAsGlobal_withItsShares() {
    HazelcastInstance member = context.getBean(HazelcastInstance.class);
    RuleRecord record = (RuleRecord) member.getMap(GridNames.RULES_MAP).get("api-global");

    Policy policy = record.policy();
    assertThat(policy).isNotNull();
    assertThat(policy.global()).isTrue();
    assertThat(policy.scope().onHomeUnreachable()).isEqualTo(OnHomeUnreachable.LOCAL_SHARE);
    assertThat(policy.scope().localShares()).containsEntry("eu-west", 0.5).hasSize(2);
  }

  @Test
  void endpoint_listsRules_peeksAKey_andResetsItForTheAdminRoleOnly() {
    assertThat(http().get("/actuator/sluice").body())
        .contains("\"hello\"", "\"payments-1d\"", "\"onDenied\":\"reject\"");
    http().post("/invite/frank");
    http().post("/invite/frank");
    assertThat(http().get("/actuator/sluice/invites/frank").body()).contains("\"remaining\":0");
    assertThat(
            http().delete("/actuator/sluice/invites/frank", Http.basic("alice", "a")).statusCode())
        .isEqualTo(403);
    assertThat(http().post("/invite/frank").statusCode()).isEqualTo(429);
    assertThat(http().delete("/actuator/sluice/invites/frank", Http.basic("ops", "o")).statusCode())
        .isEqualTo(200);
    assertThat(http().post("/invite/frank").statusCode()).isEqualTo(200);
  }

  /** The rules file the application watches: one rule, edited by a test. */
  private static Path rulesFile() {
    try {
      Path file = Files.createTempFile("starter-mvc-rules", ".yaml");
      Files.writeString(file, "rules:\n  - name: reloaded\n    limit: 2\n    window: 1m\n");
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
