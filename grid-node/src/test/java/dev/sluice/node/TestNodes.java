package dev.sluice.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.test.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Settings and an HTTP client for nodes started in tests: loopback, unique cluster, free ports. */
final class TestNodes {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** Starts of one node, counting the first, before a lost port race fails the test. */
  static final int MAX_STARTS = 3;

  private TestNodes() {}

  /**
   * A free TCP port on 127.0.0.1, outside the ephemeral range ({@link LoopbackPorts}). Another
   * process may still take it before the node binds it; {@link #awaitCluster} starts such a node
   * again on fresh ports.
   */
  static int freePort() {
    return LoopbackPorts.free();
  }

  static String uniqueClusterName() {
    return "test-" + UUID.randomUUID();
  }

  /** The environment of one node of a loopback cluster. */
  static Map<String, String> environment(
      String clusterName, int memberPort, List<Integer> memberPorts, Path rulesFile) {
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_CLUSTER_NAME", clusterName);
    env.put("SLUICE_REST_PORT", "0");
    env.put("SLUICE_RLS_PORT", "0");
    env.put("SLUICE_RESP_PORT", "0");
    env.put("SLUICE_MEMBER_PORT", Integer.toString(memberPort));
    env.put(
        "SLUICE_MEMBERS",
        String.join(",", memberPorts.stream().map(port -> "127.0.0.1:" + port).toList()));
    env.put("SLUICE_RULES_FILE", rulesFile.toString());
    env.put("SLUICE_RULES_RELOAD_INTERVAL", "100ms");
    return env;
  }

  record Answer(int status, String body, HttpResponse<String> raw) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(body, e);
      }
    }
  }

  /**
   * Waits until every node at {@code indexes} answers ready as a member of a cluster of {@code
   * size}, failing with the node's log if it exits or is not ready within {@code timeout}.
   *
   * <p>A node that exited because one of its ports was taken ({@link NodeProcess#lostPortRace()})
   * is started again on fresh ports, up to {@value #MAX_STARTS} starts in all, each with a fresh
   * {@code timeout}; {@code nodes} and {@code restPorts} are updated in place, so read ports from
   * them (or from {@link NodeProcess#restPort()}) after this returns.
   */
  static void awaitCluster(
      List<NodeProcess> nodes,
      List<Integer> restPorts,
      List<Integer> indexes,
      int size,
      Duration timeout)
      throws InterruptedException {
    String expected = "member of a " + size + "-member cluster";
    for (int index : indexes) {
      long deadline = System.nanoTime() + timeout.toNanos();
      int starts = 1;
      while (true) {
        NodeProcess node = nodes.get(index);
        if (node.lostPortRace() && starts < MAX_STARTS) {
          starts++;
          NodeProcess again = node.onFreshPorts(starts - 1);
          System.out.printf(
              "node %d lost a port race (REST %d, member %d; see %s); start %d of %d on REST %d,"
                  + " member %d%n",
              index,
              node.restPort(),
              node.memberPort(),
              node.logFile(),
              starts,
              MAX_STARTS,
              again.restPort(),
              again.memberPort());
          nodes.set(index, again);
          restPorts.set(index, again.restPort());
          deadline = System.nanoTime() + timeout.toNanos();
          continue;
        }
        if (!node.isAlive()) {
          throw new AssertionError(
              "node " + index + " exited (start " + starts + "):\n" + node.log());
        }
        try {
          Answer ready = get(node.restPort(), "/health/ready");
          if (ready.status() == 200 && ready.body().contains(expected)) {
            break;
          }
        } catch (RuntimeException notListeningYet) {
          // the process is still starting
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "node " + index + " not ready in " + timeout + ":\n" + node.log());
        }
        Thread.sleep(250); // polling a starting process, not moving limiter time
      }
    }
  }

  /**
   * Waits until the grid seen from the node at {@code restPort} has {@code size} members, each of
   * which answered and reports its partitions safe (every backup in place, no migration under way):
   * after a member's death the survivors report the smaller cluster at once, but its partitions
   * still move for a while, longer on a loaded machine, and a call on one of them fails until they
   * have.
   */
  static void awaitGridSafe(int restPort, int size, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (true) {
      try {
        Answer stats = get(restPort, "/v1/stats");
        last = stats.body();
        JsonNode members = stats.json().path("stats").path("grid").path("members");
        boolean safe = members.size() == size;
        for (JsonNode member : members) {
          safe &= member.path("answered").asBoolean() && member.path("safe").asBoolean();
        }
        if (stats.status() == 200 && safe) {
          return;
        }
      } catch (RuntimeException notAnsweringNow) {
        last = notAnsweringNow.toString();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "grid not safe with " + size + " members in " + timeout + ": " + last);
      }
      Thread.sleep(100); // polling the grid's migrations, not moving limiter time
    }
  }

  /**
   * Waits until a lone node (a cluster of one) answers ready, starting it again on fresh ports if
   * it lost a port race (see {@link #awaitCluster}). Returns the node that is running: close that
   * one, and read its ports from it.
   */
  static NodeProcess awaitReady(NodeProcess node, Duration timeout) throws InterruptedException {
    List<NodeProcess> nodes = new ArrayList<>(List.of(node));
    List<Integer> restPorts = new ArrayList<>(List.of(node.restPort()));
    try {
      awaitCluster(nodes, restPorts, List.of(0), 1, timeout);
    } catch (AssertionError | InterruptedException e) {
      nodes.get(0).close(); // the caller holds only the first; do not leave a retry running
      throw e;
    }
    return nodes.get(0);
  }

  static Answer get(int port, String path) {
    return send(HttpRequest.newBuilder(uri(port, path)).GET());
  }

  static Answer post(int port, String path, String json) {
    return send(
        HttpRequest.newBuilder(uri(port, path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  static Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              request.timeout(Duration.ofSeconds(15)).build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(response.statusCode(), response.body(), response);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static URI uri(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
