package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.Hazelcast;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.config.ConfigFileException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nodes started in this JVM on loopback, with a manual clock: REST, rules, lifecycle. */
class SluiceNodeTest {
  private static final String RULES = "rules:\n  - name: login\n    limit: 5\n    window: 1m\n";

  @TempDir Path dir;
  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void start_servesTheFilesRulesAndDecides() throws IOException {
    try (SluiceNode node = startOne()) {
      int port = node.restPort();
      assertThat(TestNodes.get(port, "/health/ready").status()).isEqualTo(200);
      assertThat(TestNodes.get(port, "/v1/rules").json().get("rules").findValuesAsText("name"))
          .containsExactly("login");
      for (int i = 0; i < 5; i++) {
        assertThat(check(port, "login", "k").status()).isEqualTo(200);
      }
      TestNodes.Answer denied = check(port, "login", "k");
      assertThat(denied.status()).isEqualTo(429);
      assertThat(denied.raw().headers().firstValue("Retry-After")).isPresent();
      assertThat(TestNodes.get(port, "/metrics").body())
          .contains("sluice_decisions_total{outcome=\"denied\",rule=\"login\"} 1.0")
          .contains("sluice_keys 1.0");
    }
  }

  @Test
  void rulesFileEdit_takesEffectWithinSeconds_brokenEditKeepsRules() throws Exception {
    try (SluiceNode node = startOne()) {
      int port = node.restPort();
      Files.writeString(rulesFile(), RULES.replace("limit: 5", "limit: 1"));
      awaitRuleLimit(port, "login", 1);
      assertThat(check(port, "login", "k").status()).isEqualTo(200);
      assertThat(check(port, "login", "k").status()).isEqualTo(429);

      Files.writeString(rulesFile(), RULES.replace("limit: 5", "limit: -3"));
      // The poller has read the broken edit and turned it down: only now does 'unchanged' say
      // something about what a broken edit does.
      awaitMetric(port, "sluice_rules_file_reloads_total{outcome=\"rejected\"} 1.0");
      TestNodes.Answer login = TestNodes.get(port, "/v1/rules/login");
      assertThat(login.json().path("limit").asLong()).as(login.body()).isEqualTo(1);
      assertThat(TestNodes.get(port, "/metrics").body()).contains("sluice_rules_file_rejected 1.0");

      Files.writeString(rulesFile(), RULES);
      awaitRuleLimit(port, "login", 5);
      awaitMetric(port, "sluice_rules_file_rejected 0.0");
    }
  }

  /** The rules file is read after the member started: the failed start shuts the member down. */
  @Test
  void start_brokenRulesFile_failsNamingFileAndLine_andClosesWhatStarted() throws IOException {
    Files.writeString(rulesFile(), RULES.replace("window: 1m", "window: 1"));
    NodeSettings settings = settings(List.of());
    assertThatThrownBy(() -> SluiceNode.start(settings, clock))
        .isInstanceOf(ConfigFileException.class)
        .hasMessageContaining(rulesFile() + ":4")
        .hasMessageContaining("window");
    assertThat(Hazelcast.getAllHazelcastInstances())
        .noneMatch(member -> member.getConfig().getClusterName().equals(settings.clusterName()));
  }

  @Test
  void start_missingRulesFile_failsNamingIt() {
    Map<String, String> env = env(List.of());
    env.put("SLUICE_RULES_FILE", dir.resolve("nope.yaml").toString());
    assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("rulesFile:")
        .hasMessageContaining("nope.yaml does not exist");
  }

  @Test
  void start_nonLoopbackBindWithoutToken_refusesUnlessInsecure() {
    Map<String, String> env = env(List.of());
    env.put("SLUICE_BIND_ADDRESS", "0.0.0.0");
    assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("adminToken: is empty, but bindAddress 0.0.0.0 is not loopback")
        .hasMessageContaining("--insecure");
  }

  @Test
  void start_bindAddressNotOfThisMachine_failsNamingItBeforeAnythingStarts() {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it. The token check must not hide it.
    for (String address : List.of("192.0.2.1", "999.1.1.1")) {
      Map<String, String> env = env(List.of());
      env.put("SLUICE_BIND_ADDRESS", address);
      assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
          .as(address)
          .isInstanceOf(NodeConfigException.class)
          .hasMessageStartingWith("bindAddress: ")
          .hasMessageContaining("'" + address + "'")
          .hasMessageContaining("of this machine");
    }
  }

  @Test
  void start_portInUse_failsNamingTheSettingWithoutAStackTrace() throws IOException {
    Files.writeString(rulesFile(), RULES);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      Map<String, String> restTaken = env(List.of());
      restTaken.put("SLUICE_REST_PORT", Integer.toString(port));
      assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, restTaken), clock))
          .isInstanceOf(NodeConfigException.class)
          .hasMessageStartingWith("restPort: port " + port + " on 127.0.0.1 is already in use")
          .hasMessageContaining("SLUICE_REST_PORT");

      Map<String, String> memberTaken =
          TestNodes.environment(TestNodes.uniqueClusterName(), port, List.of(port), rulesFile());
      assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, memberTaken), clock))
          .isInstanceOf(NodeConfigException.class)
          .hasMessageStartingWith("memberPort: port " + port + " on 127.0.0.1 is already in use")
          .hasMessageContaining("SLUICE_MEMBER_PORT");

      Map<String, String> respTaken = env(List.of());
      respTaken.put("SLUICE_RESP_PORT", Integer.toString(port));
      assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, respTaken), clock))
          .isInstanceOf(NodeConfigException.class)
          .hasMessageStartingWith("respPort: port " + port + " on 127.0.0.1 is already in use")
          .hasMessageContaining("SLUICE_RESP_PORT to another port (0: turns it off)");
    }
  }

  @Test
  void settingsFrom_arguments() throws IOException {
    Path config = Files.writeString(dir.resolve("node.yaml"), "restPort: 9999\n");
    NodeSettings settings =
        SluiceNode.settingsFrom(
            new String[] {"--config", config.toString(), "--insecure"}, Map.of());
    assertThat(settings.restPort()).isEqualTo(9999);
    assertThat(settings.insecure()).isTrue();
    assertThat(SluiceNode.settingsFrom(new String[] {"--config=" + config}, Map.of()).restPort())
        .isEqualTo(9999);
    assertThatThrownBy(() -> SluiceNode.settingsFrom(new String[] {"--port", "1"}, Map.of()))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("unknown argument '--port'")
        .hasMessageContaining("usage:");
  }

  @Test
  void twoNodes_shareCounts_andAGracefulLeaveKeepsThem() throws IOException {
    Files.writeString(rulesFile(), RULES);
    String cluster = TestNodes.uniqueClusterName();
    int portA = TestNodes.freePort();
    int portB = TestNodes.freePort();
    List<Integer> members = List.of(portA, portB);
    SluiceNode a =
        SluiceNode.start(
            NodeSettings.load(null, TestNodes.environment(cluster, portA, members, rulesFile())),
            clock);
    try (SluiceNode b =
        SluiceNode.start(
            NodeSettings.load(null, TestNodes.environment(cluster, portB, members, rulesFile())),
            clock)) {
      assertThat(b.member().getCluster().getMembers()).hasSize(2);
      int allowed = 0;
      for (int i = 0; i < 20; i++) {
        int port = i % 2 == 0 ? a.restPort() : b.restPort();
        allowed += check(port, "login", "key-" + (i % 4)).status() == 200 ? 1 : 0;
      }
      assertThat(allowed).as("4 keys x 5 permits, across both nodes").isEqualTo(20);
      assertThat(check(b.restPort(), "login", "key-0").status()).isEqualTo(429);

      a.close(); // graceful: a's partitions and their counters move to b

      for (int key = 0; key < 4; key++) {
        assertThat(check(b.restPort(), "login", "key-" + key).status())
            .as("key-" + key)
            .isEqualTo(429);
      }
    } finally {
      a.close();
    }
  }

  @Test
  void clientMode_servesTheApiOverARemoteGrid() throws IOException, InterruptedException {
    try (SluiceNode member = startOne()) {
      Map<String, String> env = env(List.of());
      env.put("SLUICE_MODE", "client");
      env.put("SLUICE_CLUSTER_NAME", member.settings().clusterName());
      env.put("SLUICE_MEMBERS", "127.0.0.1:" + member.settings().memberPort());
      try (SluiceNode client = SluiceNode.start(NodeSettings.load(null, env), clock)) {
        // Readiness follows the grid probe (a peek within the 50 ms call timeout): on a loaded
        // machine the first probes can miss it and say "unresponsive" until one answers in time.
        String ready =
            TestNodes.get(client.restPort(), "/health/ready").json().get("detail").asText();
        long readyBy = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!ready.equals("client of a 1-member cluster") && System.nanoTime() < readyBy) {
          Thread.sleep(20);
          ready = TestNodes.get(client.restPort(), "/health/ready").json().get("detail").asText();
        }
        assertThat(ready).isEqualTo("client of a 1-member cluster");
        for (int i = 0; i < 5; i++) {
          assertThat(check(client.restPort(), "login", "k").status()).isEqualTo(200);
        }
        assertThat(check(member.restPort(), "login", "k").status())
            .as("the counts live in the grid, not in the client")
            .isEqualTo(429);
        assertThat(member.member().getCluster().getMembers()).hasSize(1);
      }
    }
  }

  private SluiceNode startOne() throws IOException {
    Files.writeString(rulesFile(), RULES);
    return SluiceNode.start(settings(List.of()), clock);
  }

  private NodeSettings settings(List<Integer> others) {
    return NodeSettings.load(null, env(others));
  }

  private Map<String, String> env(List<Integer> others) {
    int port = TestNodes.freePort();
    List<Integer> members = new java.util.ArrayList<>(others);
    members.add(port);
    return TestNodes.environment(TestNodes.uniqueClusterName(), port, members, rulesFile());
  }

  private Path rulesFile() {
    return dir.resolve("rules.yaml");
  }

  private static TestNodes.Answer check(int port, String rule, String key) {
    return TestNodes.post(
        port, "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"" + key + "\"}");
  }

  /** Waits (at most 10 s) until the node's {@code /metrics} has {@code line}. */
  private static void awaitMetric(int port, String line) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!TestNodes.get(port, "/metrics").body().contains(line)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no '" + line + "' in /metrics within 10 s");
      }
      Thread.sleep(50); // waiting for the file poller, not for limiter time
    }
  }

  private static void awaitRuleLimit(int port, String rule, long limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (TestNodes.get(port, "/v1/rules/" + rule).json().get("limit").asLong() == limit) {
        return;
      }
      Thread.sleep(50); // waiting for the file poller, not for limiter time
    }
    throw new AssertionError("rule " + rule + " did not reach limit " + limit + " within 10 s");
  }
}
