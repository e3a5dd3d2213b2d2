package dev.sluice.node;

import static dev.sluice.node.RlsClient.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.config.ConfigFileException;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Envoy front end in a node's life: start, reload, port, modes. */
class EnvoyNodeTest {
  private static final String EDGE =
      """
      domain: edge
      descriptors:
        - key: remote_address
          rate_limit: {unit: minute, requests_per_unit: 3}
      """;

  @TempDir Path dir;
  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));

  @Test
  void start_brokenEnvoyConfig_failsNamingFileLineAndField_beforeTheMemberStarts()
      throws IOException {
    Path envoy = Files.writeString(dir.resolve("edge.yaml"), EDGE.replace("minute", "minutes"));
    Map<String, String> env = env(envoy);

    assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage(
            envoy
                + ":4:24: descriptors[0].rate_limit.unit: invalid rate limit unit 'minutes'; the"
                + " units are second, minute, hour, day, week, month, year");
  }

  @Test
  void start_missingEnvoyConfig_failsNamingTheSetting() throws IOException {
    Map<String, String> env = env(dir.resolve("nope"));

    assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageStartingWith("envoyConfig: " + dir.resolve("nope") + " does not exist");
  }

  @Test
  void envoyConfigEdit_takesEffectWithoutARestart_andABrokenEditKeepsThePrevious()
      throws Exception {
    Path configDir = Files.createDirectories(dir.resolve("envoy"));
    Files.writeString(configDir.resolve("edge.yaml"), EDGE);
    try (SluiceNode node = SluiceNode.start(NodeSettings.load(null, env(configDir)), clock);
        RlsClient rls = new RlsClient(node.rlsPort())) {
      assertThat(limitOf(rls, "edge", "remote_address")).isEqualTo(3);

      Files.writeString(configDir.resolve("edge.yaml"), EDGE.replace("3}", "7}"));
      Files.writeString(
          configDir.resolve("internal.yaml"),
          "domain: internal\ndescriptors: [{key: k, rate_limit: {unit: second, requests_per_unit: 9}}]\n");
      awaitAnswer(rls, "edge", "remote_address", limit -> limit == 7);
      awaitAnswer(rls, "internal", "k", limit -> limit == 9); // written second: maybe a poll later

      Files.writeString(configDir.resolve("edge.yaml"), EDGE.replace("3}", "-1}"));
      awaitMetric(node, "ratelimit_service_config_load_error_total 1.0");
      assertThat(limitOf(rls, "edge", "remote_address"))
          .as("the broken edit changed nothing")
          .isEqualTo(7);

      Files.writeString(configDir.resolve("edge.yaml"), EDGE.replace("3}", "5}"));
      Files.delete(configDir.resolve("internal.yaml"));
      awaitAnswer(rls, "internal", "k", limit -> limit == -1);
      assertThat(limitOf(rls, "edge", "remote_address")).isEqualTo(5);
    }
  }

  @Test
  void start_rlsPortInUse_failsWithOneLineNamingTheSetting() throws IOException {
    Path envoy = Files.writeString(dir.resolve("edge.yaml"), EDGE);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Map<String, String> env = env(envoy);
      env.put("SLUICE_RLS_PORT", Integer.toString(taken.getLocalPort()));

      assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
          .isInstanceOf(NodeConfigException.class)
          .hasMessage(
              "rlsPort: port "
                  + taken.getLocalPort()
                  + " on 127.0.0.1 is already in use; stop what holds it, or set SLUICE_RLS_PORT"
                  + " to another port (0: turns it off); several nodes on one host: give each"
                  + " its own SLUICE_PORT_OFFSET");
    }
  }

  @Test
  void clientModeNode_servesTheRlsOverTheGridsCounts_andPortZeroTurnsGrpcOff() throws Exception {
    Path envoy = Files.writeString(dir.resolve("edge.yaml"), EDGE);
    Map<String, String> memberEnv = env(envoy);
    memberEnv.put("SLUICE_RLS_PORT", "0");
    try (SluiceNode member = SluiceNode.start(NodeSettings.load(null, memberEnv), clock)) {
      assertThat(member.rlsPort()).isZero();
      Map<String, String> clientEnv = env(envoy);
      clientEnv.put("SLUICE_MODE", "client");
      clientEnv.put("SLUICE_CLUSTER_NAME", member.settings().clusterName());
      clientEnv.put("SLUICE_MEMBERS", "127.0.0.1:" + member.settings().memberPort());
      // This test is about where the counts go, not about timeouts: with the default 50 ms, a
      // loaded 2-core machine made the client node answer by its failure policy (fail-open,
      // nothing counted) and the member saw fewer than three.
      clientEnv.put("SLUICE_CALL_TIMEOUT", "30s");
      try (SluiceNode client = SluiceNode.start(NodeSettings.load(null, clientEnv), clock);
          RlsClient rls = new RlsClient(client.rlsPort())) {
        for (int i = 0; i < 3; i++) {
          assertThat(rls.call("edge", descriptor("remote_address", "a")).getOverallCode())
              .isEqualTo(Code.OK);
        }
        TestNodes.Answer overOnTheMember =
            TestNodes.post(
                member.restPort(),
                "/json",
                "{\"domain\": \"edge\", \"descriptors\": [{\"entries\": [{\"key\":"
                    + " \"remote_address\", \"value\": \"a\"}]}]}");
        assertThat(overOnTheMember.status())
            .as("the client's counts are the grid's: the member's /json sees them")
            .isEqualTo(429);
      }
    }
  }

  /** The limit the answer reports for one descriptor, or -1 when none applies. */
  private static long limitOf(RlsClient rls, String domain, String key) {
    RateLimitResponse response = rls.call(domain, descriptor(key, "x"));
    return response.getStatuses(0).hasCurrentLimit()
        ? response.getStatuses(0).getCurrentLimit().getRequestsPerUnit()
        : -1;
  }

  private static void awaitAnswer(RlsClient rls, String domain, String key, Predicate<Long> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!done.test(limitOf(rls, domain, key))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the edit did not take effect within 10 s");
      }
      Thread.sleep(50); // waiting for the config poller, not for limiter time
    }
  }

  private static void awaitMetric(SluiceNode node, String line) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!TestNodes.get(node.restPort(), "/metrics").body().contains(line)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no '" + line + "' in /metrics within 10 s");
      }
      Thread.sleep(50); // waiting for the config poller
    }
  }

  private Map<String, String> env(Path envoyConfig) throws IOException {
    Path rules = Files.writeString(dir.resolve("rules.yaml"), "rules: []\n");
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules);
    env.put("SLUICE_RLS_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_ENVOY_CONFIG", envoyConfig.toString());
    return env;
  }
}
