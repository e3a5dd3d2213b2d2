package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.NodeSettings;
import dev.sluice.node.SluiceNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric the chart's dashboards and alerts name exists on a running node's {@code /metrics}:
 * a member with a rules file and an Envoy config, and a client-mode node in front of it, after a
 * few decisions of each kind.
 */
class MonitoringMetricsTest {
  /**
   * Metrics of front ends not on this branch yet, named by the dashboards ahead of them. The lead
   * removes a line when its front end merges: RESP (dev.sluice.node.resp) counts its commands in
   * sluice_resp_commands_total{command}.
   */
  private static final Pattern METRIC =
      Pattern.compile("\\b(sluice_[a-z0-9_]+|ratelimit_service_[a-z0-9_]+|jvm_[a-z0-9_]+)\\b");

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path dir;
  private static SluiceNode member;
  private static SluiceNode client;

  @BeforeAll
  static void start() throws IOException, InterruptedException {
    Path rules =
        Files.writeString(
            dir.resolve("rules.yaml"),
            "rules:\n"
                + "  - {name: login, limit: 2, window: 1m}\n"
                + "  - {name: jobs, algorithm: leaky_bucket, limit: 5, window: 1s, burst: 10}\n");
    Path envoy =
        Files.writeString(
            dir.resolve("edge.yaml"),
            "domain: edge\n"
                + "descriptors:\n"
                + "  - key: remote_address\n"
                + "    rate_limit: {unit: minute, requests_per_unit: 1}\n");
    int memberPort = freePort();
    String cluster = "test-" + UUID.randomUUID();
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_CLUSTER_NAME", cluster);
    env.put("SLUICE_REST_PORT", "0");
    env.put("SLUICE_RLS_PORT", "0");
    env.put("SLUICE_MEMBER_PORT", Integer.toString(memberPort));
    env.put("SLUICE_MEMBERS", "127.0.0.1:" + memberPort);
    env.put("SLUICE_RULES_FILE", rules.toString());
    env.put("SLUICE_ENVOY_CONFIG", envoy.toString());
    env.put("SLUICE_RESP_PORT", Integer.toString(freePort()));
    member = SluiceNode.start(NodeSettings.load(null, env));
    Map<String, String> clientEnv = new HashMap<>(env);
    clientEnv.put("SLUICE_MODE", "client");
    clientEnv.put("SLUICE_CALL_TIMEOUT", "5s");
    clientEnv.put("SLUICE_RESP_PORT", Integer.toString(freePort()));
    client = SluiceNode.start(NodeSettings.load(null, clientEnv));
    for (SluiceNode node : new SluiceNode[] {member, client}) {
      respCheck(node);
      for (int i = 0; i < 4; i++) {
        post(node, "/v1/check", "{\"rule\": \"login\", \"key\": \"203.0.113.7\"}");
        post(node, "/v1/check", "{\"rule\": \"jobs\", \"key\": \"queue\"}");
        post(
            node,
            "/json",
            "{\"domain\": \"edge\", \"descriptors\": [{\"entries\": [{\"key\": \"remote_address\","
                + " \"value\": \"10.0.0.1\"}]}]}");
      }
    }
    // sluice_limited_keys is refreshed by the once-a-second tick.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!scrape(member).contains("sluice_limited_keys{")) {
      assertThat(System.nanoTime()).as("sluice_limited_keys appeared").isLessThan(deadline);
      Thread.sleep(100); // waiting for the node's wall-clock tick
    }
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (member != null) {
      member.close();
    }
  }

  @Test
  void everyMetricNamedByADashboardOrAlert_isServed() throws IOException {
    Set<String> named = new TreeSet<>();
    for (String expression :
        MonitoringChartTest.expressions(MonitoringChartTest.withMonitoring())) {
      Matcher m = METRIC.matcher(expression);
      while (m.find()) {
        named.add(m.group(1));
      }
    }
    Set<String> served = new TreeSet<>();
    for (String text : new String[] {scrape(member), scrape(client)}) {
      text.lines()
          .filter(line -> !line.startsWith("#") && !line.isBlank())
          .forEach(line -> served.add(line.split("[{ ]", 2)[0]));
    }

    assertThat(named).hasSizeGreaterThan(20);
    Set<String> missing = new TreeSet<>(named);
    missing.removeAll(served);
    assertThat(missing).as("named but not served").isEmpty();
  }

  private static String scrape(SluiceNode node) {
    return send(HttpRequest.newBuilder(uri(node, "/metrics")).GET());
  }

  private static void post(SluiceNode node, String path, String json) {
    send(
        HttpRequest.newBuilder(uri(node, path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private static URI uri(SluiceNode node, String path) {
    return URI.create("http://127.0.0.1:" + node.restPort() + path);
  }

  private static String send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
              request.timeout(Duration.ofSeconds(15)).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * One CL.THROTTLE over the node's Redis port, so that the RESP front end's per-command metrics
   * exist; reads the five-integer reply before closing.
   */
  private static void respCheck(SluiceNode node) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), node.respPort())) {
      socket.setSoTimeout(10_000);
      String command = "CL.THROTTLE metrics-test 5 10 60\r\n";
      socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
      byte[] reply = new byte[64];
      int read = socket.getInputStream().read(reply);
      assertThat(new String(reply, 0, Math.max(read, 0), StandardCharsets.US_ASCII))
          .as("CL.THROTTLE's reply")
          .startsWith("*5\r\n:0\r\n");
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
