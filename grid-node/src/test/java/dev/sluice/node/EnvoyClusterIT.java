package dev.sluice.node;

import static dev.sluice.node.RlsClient.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three {@code sluice-node.jar} processes form one grid and each serves Envoy's rate limit service:
 * requests spread over the three RLS ports are limited as one, because every node counts in the
 * same grid. And a node given a broken Envoy config exits at once, naming the file.
 *
 * <p>The limit is a sliding_log of 30 per hour (the config's {@code sluice:} key): exact, and no
 * permit frees up within the test, so "exactly the limit" is exact.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class EnvoyClusterIT {
  private static final int LIMIT = 30;
  private static final String CONFIG =
      """
      domain: edge
      descriptors:
        - key: remote_address
          rate_limit:
            unit: hour
            requests_per_unit: %d
            sluice: {algorithm: sliding_log}
      """
          .formatted(LIMIT);
  private static final Duration STARTUP = Duration.ofSeconds(120);

  private final List<NodeProcess> nodes = new ArrayList<>();

  @AfterEach
  void stopAll() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void threeProcesses_requestsSpreadOverTheirRlsPorts_areLimitedAsOne() throws Exception {
    Path work = workDirectory("envoy-cluster-it-");
    Path rules = Files.writeString(work.resolve("rules.yaml"), "rules: []\n");
    Path envoy = Files.writeString(work.resolve("edge.yaml"), CONFIG);
    String cluster = TestNodes.uniqueClusterName();
    List<Integer> memberPorts =
        List.of(TestNodes.freePort(), TestNodes.freePort(), TestNodes.freePort());
    List<Integer> restPorts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Map<String, String> env =
          TestNodes.environment(cluster, memberPorts.get(i), memberPorts, rules);
      int restPort = TestNodes.freePort();
      env.put("SLUICE_REST_PORT", Integer.toString(restPort));
      env.put("SLUICE_RLS_PORT", Integer.toString(TestNodes.freePort()));
      env.put("SLUICE_ENVOY_CONFIG", envoy.toString());
      restPorts.add(restPort);
      nodes.add(
          new NodeProcess(NodeProcess.jar(), env, work.resolve("node-" + i + ".log"), work)
              .start());
    }
    TestNodes.awaitCluster(nodes, restPorts, List.of(0, 1, 2), 3, STARTUP);

    List<RlsClient> clients = new ArrayList<>();
    for (NodeProcess node : nodes) {
      clients.add(new RlsClient(node.rlsPort()));
    }
    try {
      List<String> addresses = List.of("10.1.0.1", "10.1.0.2", "10.1.0.3");
      Map<String, Integer> admitted = spread(clients, addresses, LIMIT + 15);

      assertThat(admitted)
          .as("OK answers per address, over three RLS ports")
          .allSatisfy((address, count) -> assertThat(count).isEqualTo(LIMIT));
      for (RlsClient client : clients) {
        assertThat(client.call("edge", descriptor("remote_address", "10.1.0.1")).getOverallCode())
            .isEqualTo(Code.OVER_LIMIT);
      }
      TestNodes.Answer json =
          TestNodes.post(
              restPorts.get(2),
              "/json",
              "{\"domain\": \"edge\", \"descriptors\": [{\"entries\": [{\"key\":"
                  + " \"remote_address\", \"value\": \"10.1.0.2\"}]}]}");
      assertThat(json.status()).as("POST /json counts in the same grid").isEqualTo(429);
    } finally {
      clients.forEach(RlsClient::close);
    }
  }

  @Test
  void nodeWithABrokenEnvoyConfig_exitsNonZeroNamingTheFile() throws Exception {
    Path work = workDirectory("envoy-broken-it-");
    Path rules = Files.writeString(work.resolve("rules.yaml"), "rules: []\n");
    Path envoy =
        Files.writeString(work.resolve("edge.yaml"), CONFIG.replace("unit: hour", "unit: hours"));
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        new HashMap<>(
            TestNodes.environment(
                TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules));
    env.put("SLUICE_ENVOY_CONFIG", envoy.toString());
    NodeProcess node =
        new NodeProcess(NodeProcess.jar(), env, work.resolve("node.log"), work).start();
    nodes.add(node);

    int exit = node.exitCode();

    assertThat(exit).isEqualTo(2);
    assertThat(node.log())
        .contains(
            "sluice-node: "
                + envoy
                + ":5:13: descriptors[0].rate_limit.unit: invalid rate limit unit 'hours'")
        .doesNotContain("Exception");
  }

  /** {@code perAddress} requests for each address, spread round-robin over the clients. */
  private static Map<String, Integer> spread(
      List<RlsClient> clients, List<String> addresses, int perAddress) throws Exception {
    Map<String, AtomicInteger> admitted = new ConcurrentHashMap<>();
    addresses.forEach(address -> admitted.put(address, new AtomicInteger()));
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> calls = new ArrayList<>();
      int sent = 0;
      for (int i = 0; i < perAddress; i++) {
        for (String address : addresses) {
          RlsClient client = clients.get(sent++ % clients.size());
          calls.add(
              threads.submit(
                  () -> {
                    if (client.call("edge", descriptor("remote_address", address)).getOverallCode()
                        == Code.OK) {
                      admitted.get(address).incrementAndGet();
                    }
                  }));
        }
      }
      for (Future<?> call : calls) {
        call.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    Map<String, Integer> counts = new java.util.TreeMap<>();
    admitted.forEach((address, count) -> counts.put(address, count.get()));
    return counts;
  }

  private static Path workDirectory(String prefix) throws Exception {
    return Files.createDirectories(Path.of("target", prefix + System.nanoTime()).toAbsolutePath());
  }
}
