package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client-mode node deployed while its grid is down (a deploy during an outage): it starts anyway,
 * reports not ready, and answers checks by the failure policy from the first one; when a member
 * comes up it connects by itself, applies its rules file, turns ready, and the grid decides.
 * Nothing is restarted.
 *
 * <pre>
 *   no member     node starts; /health/ready 503; api -> 200 fail_open, login -> 429 fail_closed
 *   member starts node ready by itself; checks decided by the limiter
 * </pre>
 */
@Timeout(120)
class ClientModeStartWithoutGridTest {
  private static final String RULES =
      "rules:\n"
          + "  - name: api\n    limit: 1000\n    window: 1m\n"
          + "  - name: login\n    limit: 5\n    window: 1m\n";

  @TempDir Path dir;
  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void start_noGrid_startsUnreadyAnsweringByPolicy_thenConnectsByItself() throws Exception {
    Path rules = Files.writeString(dir.resolve("rules.yaml"), RULES);
    int memberPort = TestNodes.freePort();
    String cluster = TestNodes.uniqueClusterName();
    Map<String, String> memberEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    Map<String, String> clientEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    clientEnv.put("SLUICE_MODE", "client");
    clientEnv.put("SLUICE_CALL_TIMEOUT", "250ms");
    clientEnv.put("SLUICE_FAILURE_POLICIES", "login=fail-closed");

    long startAt = System.nanoTime();
    SluiceNode member = null;
    try (SluiceNode node = SluiceNode.start(NodeSettings.load(null, clientEnv), clock)) {
      System.out.printf(
          "client-mode node without a grid: started in %d ms%n",
          (System.nanoTime() - startAt) / 1_000_000);
      int port = node.restPort();
      TestNodes.Answer ready = TestNodes.get(port, "/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.body()).contains("failure policy");

      TestNodes.Answer api = check(port, "api");
      assertThat(api.status()).as(api.body()).isEqualTo(200);
      assertThat(api.json().get("decidedBy").asText()).isEqualTo("fail_open");
      TestNodes.Answer login = check(port, "login");
      assertThat(login.status()).as(login.body()).isEqualTo(429);
      assertThat(login.json().get("decidedBy").asText()).isEqualTo("fail_closed");

      member = SluiceNode.start(NodeSettings.load(null, memberEnv), clock);
      long memberUpAt = System.nanoTime();
      while (TestNodes.get(port, "/health/ready").status() != 200
          && System.nanoTime() - memberUpAt < Duration.ofSeconds(60).toNanos()) {
        Thread.sleep(50); // waiting for the background connection, not for limiter time
      }
      assertThat(TestNodes.get(port, "/health/ready").status()).isEqualTo(200);
      api = check(port, "api");
      while (api.json().has("decidedBy")
          && System.nanoTime() - memberUpAt < Duration.ofSeconds(60).toNanos()) {
        Thread.sleep(50); // the breaker's next probe, in wall time
        api = check(port, "api");
      }
      System.out.printf(
          "member up: node ready and deciding by the grid after %d ms%n",
          (System.nanoTime() - memberUpAt) / 1_000_000);
      assertThat(api.json().has("decidedBy")).as(api.body()).isFalse();
      assertThat(api.json().get("limit").asLong()).isEqualTo(1000);
    } finally {
      if (member != null) {
        member.close();
      }
    }
  }

  private static TestNodes.Answer check(int port, String rule) {
    return TestNodes.post(port, "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"k\"}");
  }
}
