package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.ManualTimeSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's data on a member and on a client-mode node in front of it (no browser): where each
 * rule came from, the client's failure policy, and whose decisions each node's stats include.
 */
class ConsoleNodeTest {
  private static final String TOKEN = "console-node-token";
  private static final ManualTimeSource CLOCK =
      ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));

  @TempDir Path dir;
  private SluiceNode member;
  private SluiceNode client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (member != null) {
      member.close();
    }
  }

  @Test
  void stats_memberAndClientMode_showOriginsPoliciesAndTheirOwnDecisions() throws Exception {
    Path rules =
        Files.writeString(
            dir.resolve("rules.yaml"),
            "rules:\n  - {name: login, limit: 2, window: 1m}\n  - {name: api, limit: 9, window: 1s}\n");
    int memberPort = TestNodes.freePort();
    String cluster = TestNodes.uniqueClusterName();
    Map<String, String> env =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    env.put("SLUICE_ADMIN_TOKEN", TOKEN);
    env.put("SLUICE_RESP_PORT", Integer.toString(TestNodes.freePort()));
    member = SluiceNode.start(NodeSettings.load(null, env), CLOCK);
    env.put("SLUICE_RESP_PORT", "0");
    env.put("SLUICE_MODE", "client");
    env.put("SLUICE_CALL_TIMEOUT", "5s");
    env.put("SLUICE_FAILURE_POLICIES", "login=fail-closed");
    client = SluiceNode.start(NodeSettings.load(null, env), CLOCK);

    putRule(member, "api", "{\"limit\": 10, \"window\": \"1s\"}");
    putRule(member, "signup", "{\"limit\": 3, \"window\": \"1h\"}");
    for (int i = 0; i < 3; i++) {
      TestNodes.post(client.restPort(), "/v1/check", "{\"rule\": \"login\", \"key\": \"eve\"}");
    }

    JsonNode onClient = awaitDecisions(client, 3);
    assertThat(onClient.at("/node/mode").asText()).isEqualTo("client");
    assertThat(origins(onClient))
        .containsEntry("login", "rules_file")
        .containsEntry("api", "rules_file_then_api")
        .containsEntry("signup", "api");
    assertThat(rule(onClient, "login").path("failurePolicy").asText()).isEqualTo("fail-closed");
    assertThat(rule(onClient, "api").path("failurePolicy").asText()).isEqualTo("fail-open");
    assertThat(onClient.at("/stats/grid/members")).hasSize(1);
    assertThat(onClient.at("/stats/grid/members/0/answered").asBoolean()).isTrue();
    assertThat(onClient.at("/stats/grid/clients").size()).isPositive();
    long timed = 0;
    for (JsonNode second : onClient.at("/stats/rates/0/timed")) {
      timed += second.asLong();
    }
    assertThat(timed).as("the rule's checks that went to the owner are timed").isPositive();

    // The member counts what its own front ends decide: not the client-mode node's checks.
    JsonNode onMember = TestNodes.get(member.restPort(), "/v1/stats?seconds=60").json();
    assertThat(onMember.at("/node/mode").asText()).isEqualTo("member");
    assertThat(rule(onMember, "login").has("failurePolicy")).isFalse();
    assertThat(onMember.at("/stats/rates")).isEmpty();
    // Its Redis port reports to the console as a front end, with each command it answered.
    throttleOverResp(member.respPort());
    JsonNode resp =
        frontEnd(TestNodes.get(member.restPort(), "/v1/stats?seconds=60").json(), "resp");
    assertThat(resp.path("connections").asLong()).isNotNegative();
    assertThat(resp.path("commands").findValuesAsText("command")).contains("cl.throttle");
    assertThat(TestNodes.get(member.restPort(), "/").status()).isEqualTo(200);
    assertThat(TestNodes.get(client.restPort(), "/").status()).isEqualTo(200);
  }

  /** One {@code CL.THROTTLE} as an inline command, its five-integer reply read. */
  private static void throttleOverResp(int port) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write("CL.THROTTLE k 5 10 60\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] reply = new byte[64];
      int read = socket.getInputStream().read(reply);
      assertThat(new String(reply, 0, Math.max(read, 0), StandardCharsets.US_ASCII))
          .startsWith("*5\r\n");
    }
  }

  private static JsonNode frontEnd(JsonNode stats, String name) {
    for (JsonNode frontEnd : stats.at("/stats/frontEnds")) {
      if (frontEnd.path("name").asText().equals(name)) {
        return frontEnd;
      }
    }
    throw new AssertionError("no front end '" + name + "' in " + stats.at("/stats/frontEnds"));
  }

  private static void putRule(SluiceNode node, String name, String json) {
    TestNodes.Answer answer =
        TestNodes.send(
            HttpRequest.newBuilder(TestNodes.uri(node.restPort(), "/v1/rules/" + name))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + TOKEN)
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    assertThat(answer.status()).as(answer.body()).isBetween(200, 201);
  }

  /** The node's stats once its rates hold {@code decisions} decisions (its tick is wall-clock). */
  private static JsonNode awaitDecisions(SluiceNode node, long decisions)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      JsonNode stats = TestNodes.get(node.restPort(), "/v1/stats?seconds=60").json();
      long seen = 0;
      for (JsonNode rule : stats.at("/stats/rates")) {
        for (String outcome : List.of("allowed", "denied", "shadowDenied")) {
          for (JsonNode second : rule.path(outcome)) {
            seen += second.asLong();
          }
        }
      }
      if (seen >= decisions) {
        return stats;
      }
      assertThat(System.nanoTime()).as("decisions in the stats: %s", stats).isLessThan(deadline);
      Thread.sleep(100); // waiting for the node's once-a-second wall-clock tick
    }
  }

  private static Map<String, String> origins(JsonNode stats) {
    Map<String, String> origins = new TreeMap<>();
    stats
        .path("rules")
        .forEach(r -> origins.put(r.path("name").asText(), r.path("origin").asText()));
    return origins;
  }

  private static JsonNode rule(JsonNode stats, String name) {
    for (JsonNode rule : stats.path("rules")) {
      if (rule.path("name").asText().equals(name)) {
        return rule;
      }
    }
    throw new AssertionError("no rule " + name + " in " + stats);
  }
}
