package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the shell script of the {@code helm test} pod, as rendered, with {@code sh} and {@code curl}
 * against three loopback "nodes". The point of the script is to fail when the nodes are healthy one
 * by one but are not one cluster (broken discovery): then each node counts its own counter and the
 * countdown across nodes breaks.
 */
class HelmTestScriptTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NODES = 3;

  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void script_nodesShareOneCounter_passes() throws Exception {
    Result result = runScriptAgainst(/* oneCluster= */ true);

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("node 2: remaining 997 (expected 997)")
        .contains("cluster of 3 nodes is ready and shares its counters");
  }

  @Test
  void script_eachNodeIsItsOwnCluster_fails() throws Exception {
    Result result = runScriptAgainst(/* oneCluster= */ false);

    assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
    assertThat(result.output())
        .contains("node 1: remaining 999 (expected 998)")
        .contains("node 1 does not share the counter");
  }

  private record Result(int exitCode, String output) {}

  private Result runScriptAgainst(boolean oneCluster) throws Exception {
    Map<String, Integer> shared = new ConcurrentHashMap<>();
    Map<String, Map<String, Integer>> perNode = new ConcurrentHashMap<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.endsWith("/health/ready")) {
            respond(exchange, 200, "{\"status\":\"UP\",\"detail\":\"ready\"}");
          } else if (path.endsWith("/v1/check")) {
            JsonNode body = JSON.readTree(exchange.getRequestBody());
            String node = path.substring(1, path.indexOf('/', 1));
            Map<String, Integer> counters =
                oneCluster ? shared : perNode.computeIfAbsent(node, n -> new ConcurrentHashMap<>());
            int limit = body.path("limit").asInt();
            int used = counters.merge(body.path("key").asText(), 1, Integer::sum);
            respond(
                exchange,
                200,
                "{\"allowed\":true,\"limit\":%d,\"remaining\":%d,\"resetAfterMs\":3600000,\"retryAfterMs\":0,\"rule\":null,\"shadow\":false}"
                    .formatted(limit, limit - used));
          } else {
            respond(exchange, 404, "{\"error\":\"not_found\",\"message\":\"no route\"}");
          }
        });
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();

    JsonNode pod =
        SluiceChart.withDefaults()
            .set("replicaCount", NODES)
            .renderWithHooksAndNotes()
            .named("Pod", "rl-sluice-test-cluster");
    JsonNode container = RenderedChart.container(pod, "check-cluster");
    assertThat(container.path("command").path(0).asText()).isEqualTo("sh");
    String script = container.path("command").path(2).asText();

    ProcessBuilder process =
        new ProcessBuilder("sh", container.path("command").path(1).asText(), script)
            .redirectErrorStream(true);
    // The rendered values, pointed at the loopback nodes /node0 ... /node2 instead of pod names.
    process
        .environment()
        .put(
            "EXPECTED_MEMBERS",
            RenderedChart.env(container).get("EXPECTED_MEMBERS").path("value").asText());
    process.environment().put("NODE_URL_PREFIX", base + "/node");
    process.environment().put("NODE_URL_SUFFIX", "");
    process.environment().put("SERVICE_URL", base + "/service");
    Process running = process.start();
    if (!running.waitFor(30, TimeUnit.SECONDS)) {
      running.destroyForcibly();
      throw new AssertionError("the helm test script did not finish in 30 s");
    }
    String output = new String(running.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(running.exitValue(), output);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
