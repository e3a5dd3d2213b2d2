package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A REST node in client mode loses its grid and gets it back, for real: a member node and a
 * client-mode node in this JVM on loopback; the member is shut down, and later a new member starts
 * on the same port and cluster. The client-mode node is never restarted.
 *
 * <pre>
 *   grid up     api, login       decided by the limiter (no decidedBy)
 *   grid down   api   -> 200 decidedBy=fail_open     (the default policy)
 *               login -> 429 decidedBy=fail_closed   (failurePolicies: login=fail-closed)
 *               a rule never seen here -> its failure policy, limit unknown (0)
 *               each answer within callTimeout + 1 s; /health/ready 503; metrics count them
 *   grid back   decided by the limiter again, without a restart
 * </pre>
 */
@Timeout(120)
@Tag("realtime") // judged on the wall clock while the machine is loaded
class ClientModeOutageTest {
  private static final String RULES =
      "rules:\n"
          + "  - name: api\n    limit: 1000\n    window: 1m\n"
          + "  - name: login\n    limit: 5\n    window: 1m\n";
  private static final Duration CALL_TIMEOUT = Duration.ofMillis(250);

  /**
   * How long a check may take while the grid is away: the call timeout the failure policy waits
   * out, plus a second for scheduling on a loaded 2-core machine (a JVM there stands still for up
   * to half a second at times).
   */
  private static final long ANSWER_BOUND_MILLIS = CALL_TIMEOUT.toMillis() + 1_000;

  private static final Pattern LOCAL_DECISIONS =
      Pattern.compile(
          "sluice_client_local_decisions_total\\{reason=\"(fail_open|fail_closed)\"} ([0-9.E]+)");

  @TempDir Path dir;
  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void check_gridDownThenBack_failurePolicyAnswersWithinTheTimeoutThenTheGridAgain()
      throws Exception {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, RULES);
    int memberPort = TestNodes.freePort();
    String cluster = TestNodes.uniqueClusterName();
    Map<String, String> memberEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    Map<String, String> clientEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    clientEnv.put("SLUICE_MODE", "client");
    clientEnv.put("SLUICE_CALL_TIMEOUT", "250ms");
    clientEnv.put("SLUICE_FAILURE_POLICIES", "login=fail-closed");

    SluiceNode member = SluiceNode.start(NodeSettings.load(null, memberEnv), clock);
    SluiceNode back = null;
    try (SluiceNode node = SluiceNode.start(NodeSettings.load(null, clientEnv), clock)) {
      int port = node.restPort();

      // Grid up: the limiter decides, and the body is the plain one of docs/rest-api.md.
      TestNodes.Answer api = check(port, "api");
      assertThat(api.status()).isEqualTo(200);
      assertThat(api.json().has("decidedBy")).isFalse();
      TestNodes.Answer login = check(port, "login");
      assertThat(login.status()).isEqualTo(200);
      assertThat(login.json().has("decidedBy")).isFalse();
      assertThat(login.json().get("remaining").asLong()).isEqualTo(4);
      assertThat(readyWithin(port, Duration.ofSeconds(10))).isEqualTo(200);
      assertThat(localDecisions(port, "fail_open")).isZero();
      // A rule created on the grid after this node started, and never checked here.
      member.limiter().rules().put(new Rule("late", Policy.of(3, Duration.ofMinutes(1))));

      // Grid down.
      member.close();
      long worstMillis = 0;
      long totalMillis = 0;
      int answers = 0;
      long downAt = System.nanoTime();
      while (answers < 200 && System.nanoTime() - downAt < Duration.ofSeconds(3).toNanos()) {
        long before = System.nanoTime();
        api = check(port, "api");
        long apiMillis = (System.nanoTime() - before) / 1_000_000;
        before = System.nanoTime();
        login = check(port, "login");
        long loginMillis = (System.nanoTime() - before) / 1_000_000;
        assertThat(apiMillis).as("api answer time, ms").isLessThan(ANSWER_BOUND_MILLIS);
        assertThat(loginMillis).as("login answer time, ms").isLessThan(ANSWER_BOUND_MILLIS);
        worstMillis = Math.max(worstMillis, Math.max(apiMillis, loginMillis));
        totalMillis += apiMillis + loginMillis;
        answers += 2;

        assertThat(api.status()).as(api.body()).isEqualTo(200);
        assertThat(api.json().get("decidedBy").asText()).isEqualTo("fail_open");
        assertThat(api.json().get("allowed").asBoolean()).isTrue();
        assertThat(api.json().get("limit").asLong()).as("the rule's limit").isEqualTo(1000);
        // The body reports the rule's limit; the headers state no count the grid did not give.
        assertThat(api.raw().headers().firstValue("X-RateLimit-Limit")).isEmpty();
        assertThat(api.raw().headers().firstValue("RateLimit")).isEmpty();

        assertThat(login.status()).as(login.body()).isEqualTo(429);
        assertThat(login.json().get("decidedBy").asText()).isEqualTo("fail_closed");
        assertThat(login.json().get("allowed").asBoolean()).isFalse();
        assertThat(login.json().get("limit").asLong()).isEqualTo(5);
        assertThat(login.json().get("remaining").asLong()).isZero();
        assertThat(login.json().get("retryAfterMs").asLong()).isPositive();
        assertThat(login.raw().headers().firstValue("Retry-After")).isPresent();
        assertThat(login.raw().headers().firstValue("RateLimit-Policy")).isEmpty();
      }
      System.out.printf(
          "grid down: %d answers in %d ms, mean %.1f ms, worst %d ms (call timeout %d ms)%n",
          answers,
          (System.nanoTime() - downAt) / 1_000_000,
          (double) totalMillis / answers,
          worstMillis,
          CALL_TIMEOUT.toMillis());
      assertThat(answers).isGreaterThanOrEqualTo(10);

      TestNodes.Answer batch =
          TestNodes.post(
              port,
              "/v1/check/batch",
              "{\"checks\": [{\"rule\": \"api\", \"key\": \"k\"},"
                  + " {\"rule\": \"login\", \"key\": \"k\"}]}");
      assertThat(batch.status()).isEqualTo(429);
      JsonNode results = batch.json().get("results");
      assertThat(results.get(0).get("decidedBy").asText()).isEqualTo("fail_open");
      assertThat(results.get(1).get("decidedBy").asText()).isEqualTo("fail_closed");

      // A rule never checked here: answered by its failure policy, and said so. Its creation event
      // has usually fed the client's rules cache (limit 3); if that read had not landed before the
      // grid went, the limit is unknown here (0).
      TestNodes.Answer late = check(port, "late");
      assertThat(late.status()).as(late.body()).isEqualTo(200);
      assertThat(late.json().get("decidedBy").asText()).isEqualTo("fail_open");
      assertThat(late.json().get("limit").asLong()).isIn(0L, 3L);
      // What has no local answer is refused as unavailable, not as a server error.
      assertThat(TestNodes.get(port, "/v1/limits/api/k").status()).as("peek").isEqualTo(503);
      TestNodes.Answer list = TestNodes.get(port, "/v1/rules");
      assertThat(list.status()).isEqualTo(503);
      assertThat(list.json().get("error").asText()).isEqualTo("unavailable");
      assertThat(list.json().get("message").asText())
          .as("no Java class name in an answer")
          .startsWith("the grid cannot decide right now")
          .doesNotContain("Exception");

      TestNodes.Answer ready = TestNodes.get(port, "/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.body()).contains("failure policy");
      assertThat(localDecisions(port, "fail_open")).isGreaterThanOrEqualTo(answers / 2 + 1);
      assertThat(localDecisions(port, "fail_closed")).isGreaterThanOrEqualTo(answers / 2 + 1);

      // Grid back: a new member on the same port and cluster, with the same rules file.
      long backAt = System.nanoTime();
      back = SluiceNode.start(NodeSettings.load(null, memberEnv), clock);
      long startedAt = System.nanoTime();
      api = check(port, "api");
      login = check(port, "login");
      while ((api.json().has("decidedBy") || login.json().has("decidedBy"))
          && System.nanoTime() - startedAt < Duration.ofSeconds(30).toNanos()) {
        Thread.sleep(50); // waiting for the client to reconnect, not for limiter time
        api = check(port, "api");
        login = check(port, "login");
      }
      System.out.printf(
          "grid back: member started in %d ms, then decided by the grid again after %d ms%n",
          (startedAt - backAt) / 1_000_000, (System.nanoTime() - startedAt) / 1_000_000);
      assertThat(api.status()).isEqualTo(200);
      assertThat(api.json().has("decidedBy")).as(api.body()).isFalse();
      assertThat(login.status()).as("a fresh grid: login has its 5 again").isEqualTo(200);
      assertThat(login.json().has("decidedBy")).isFalse();
      assertThat(login.json().get("remaining").asLong()).isBetween(0L, 4L);
      assertThat(readyWithin(port, Duration.ofSeconds(10))).isEqualTo(200);
    } finally {
      member.close();
      if (back != null) {
        back.close();
      }
    }
  }

  /**
   * The readiness status once it is 200, or the last one after {@code bound}. Readiness follows the
   * grid probe, which answers on its own schedule (every half call timeout) and must answer within
   * two call timeouts: it may turn a moment after the first decision the grid made, at the start as
   * when the grid is back, and on a loaded 2-core machine a probe can miss its 500 ms now and then.
   * Ten seconds is twenty probes.
   */
  private static int readyWithin(int port, Duration bound) throws InterruptedException {
    int readiness = TestNodes.get(port, "/health/ready").status();
    long readyBy = System.nanoTime() + bound.toNanos();
    while (readiness != 200 && System.nanoTime() < readyBy) {
      Thread.sleep(20); // polling the probe, not moving limiter time
      readiness = TestNodes.get(port, "/health/ready").status();
    }
    return readiness;
  }

  private static TestNodes.Answer check(int port, String rule) {
    return TestNodes.post(port, "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"k\"}");
  }

  private static double localDecisions(int port, String reason) throws IOException {
    Matcher m = LOCAL_DECISIONS.matcher(TestNodes.get(port, "/metrics").body());
    while (m.find()) {
      if (m.group(1).equals(reason)) {
        return Double.parseDouble(m.group(2));
      }
    }
    throw new AssertionError("no sluice_client_local_decisions_total{reason=" + reason + "}");
  }
}
