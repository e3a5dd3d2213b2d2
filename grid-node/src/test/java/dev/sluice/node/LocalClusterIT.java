package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/configuration.md's three nodes on one host, one command each, run as written: three {@code
 * sluice-node.jar} processes that differ only in {@code SLUICE_PORT_OFFSET} form one cluster, each
 * on its shifted default ports, and a check on one node counts on the others.
 *
 * <p>Two things are added to the page's commands, both so that the test can share a machine: a
 * cluster name of its own, and a base offset added to every offset and member port, chosen so that
 * every port the three nodes will listen on is free (the page's own ports, 8080 and up, may be in
 * use by another node on this machine). A node that loses a port to another process between that
 * choice and its bind is a lost race, not a failure: the three start again on another base.
 */
@Tag("multiprocess")
// Three JVMs starting on two shared cores take up to a minute; each of the (at most three) starts
// waits STARTUP for them, and the checks after take seconds.
@Timeout(value = 6, unit = java.util.concurrent.TimeUnit.MINUTES)
class LocalClusterIT {
  /** The default ports of docs/configuration.md's example, before any offset. */
  private static final int REST = 8080;

  private static final int MEMBER = 5701;
  private static final int RLS = 8081;
  private static final int RESP = 6380;

  /** How long three nodes get to form a cluster: a JVM start each, on two shared cores. */
  private static final Duration STARTUP = Duration.ofSeconds(90);

  private static final Pattern SECTION =
      Pattern.compile("## Several nodes on one host\n.*?```sh\n(.*?)```", Pattern.DOTALL);
  private static final Pattern EXPORT = Pattern.compile("export SLUICE_MEMBERS=(\\S+)");
  private static final Pattern COMMAND =
      Pattern.compile("SLUICE_PORT_OFFSET=(\\d+) java -jar (\\S+)");

  private final List<NodeProcess> nodes = new ArrayList<>();

  @AfterEach
  void stopAll() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void threeNodesOnOneHost_oneOffsetEach_formOneClusterOnShiftedDefaultPorts() throws Exception {
    Example example = Example.fromDocs();
    assertThat(example.offsets()).as("the page's offsets").containsExactly(0, 10, 20);
    Path work = Files.createDirectories(Path.of("target", "local-cluster-it-" + System.nanoTime()));
    String cluster = TestNodes.uniqueClusterName();

    int base = -1;
    for (int attempt = 1; attempt <= TestNodes.MAX_STARTS && base < 0; attempt++) {
      int candidate = freeBase(example.offsets());
      for (int i = 0; i < example.offsets().size(); i++) {
        nodes.add(example.node(i, candidate, cluster, work, attempt).start());
      }
      if (awaitCluster(candidate, example.offsets())) {
        base = candidate;
      } else {
        nodes.forEach(NodeProcess::close);
        nodes.clear();
      }
    }
    assertThat(base).as("a base offset whose ports no other process took").isNotNegative();

    for (int offset : example.offsets()) {
      int shift = base + offset;
      assertThat(TestNodes.get(REST + shift, "/health/ready").body())
          .contains("member of a 3-member cluster");
      assertThat(listening(RLS + shift)).as("Envoy on %d", RLS + shift).isTrue();
      assertThat(listening(RESP + shift)).as("Redis on %d", RESP + shift).isTrue();
      assertThat(listening(MEMBER + shift)).as("member on %d", MEMBER + shift).isTrue();
    }
    // One grid: what the first node admits, the third node's peek sees. On password-reset, the
    // example rule that is exact whenever it is asked (sliding_log, 3 per 15 minutes): login's
    // sliding window is an estimate across a wall-clock minute, so a peek just after the minute
    // the check fell in reads its count as 0 (once in a few hundred runs of a loaded machine).
    int first = REST + base;
    int third = REST + base + example.offsets().get(2);
    String check = "{\"rule\": \"password-reset\", \"key\": \"alice\"}";
    assertThat(TestNodes.post(first, "/v1/check", check).status()).isEqualTo(200);
    assertThat(
            TestNodes.get(third, "/v1/limits/password-reset/alice")
                .json()
                .get("remaining")
                .asLong())
        .isEqualTo(2);
  }

  /**
   * Waits for all three nodes to be ready as members of one cluster of three; false if one of them
   * exited because a port was taken (a lost race: start again elsewhere).
   */
  private boolean awaitCluster(int base, List<Integer> offsets) throws InterruptedException {
    for (int i = 0; i < nodes.size(); i++) {
      NodeProcess node = nodes.get(i);
      long deadline = System.nanoTime() + STARTUP.toNanos();
      while (true) {
        if (node.lostPortRace()) {
          System.out.println("node " + i + " lost a port race; see " + node.logFile());
          return false;
        }
        if (!node.isAlive()) {
          throw new AssertionError("node " + i + " exited:\n" + node.log());
        }
        try {
          TestNodes.Answer ready = TestNodes.get(REST + base + offsets.get(i), "/health/ready");
          if (ready.status() == 200 && ready.body().contains("member of a 3-member cluster")) {
            break;
          }
        } catch (RuntimeException notListeningYet) {
          // still starting
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("node " + i + " not ready in " + STARTUP + ":\n" + node.log());
        }
        Thread.sleep(250); // polling a starting process, not moving limiter time
      }
    }
    return true;
  }

  /**
   * A base offset at which every port of the three nodes is free now: 12 ports between 6380 and
   * about 30,000 (above the page's own, below Linux's ephemeral range of 32768 and up).
   */
  private static int freeBase(List<Integer> offsets) {
    for (int tries = 0; tries < 1_000; tries++) {
      int base = 100 + ThreadLocalRandom.current().nextInt(20_000);
      boolean free = true;
      for (int offset : offsets) {
        for (int port : List.of(REST, MEMBER, RLS, RESP)) {
          free &= isFree(port + base + offset);
        }
      }
      if (free) {
        return base;
      }
    }
    throw new IllegalStateException("no base offset with twelve free ports in 1,000 tries");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.isBound();
    } catch (IOException taken) {
      return false;
    }
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The page's example: the member list it exports and one offset per command. */
  private record Example(List<Integer> memberPorts, List<Integer> offsets, String jar) {
    static Example fromDocs() throws IOException {
      Path repository = Path.of(System.getProperty("user.dir")).getParent();
      String page = Files.readString(repository.resolve("docs/configuration.md"));
      Matcher section = SECTION.matcher(page);
      assertThat(section.find()).as("docs/configuration.md's three-node example").isTrue();
      Matcher export = EXPORT.matcher(section.group(1));
      assertThat(export.find()).as("its SLUICE_MEMBERS").isTrue();
      List<Integer> memberPorts =
          Arrays.stream(export.group(1).split(","))
              .map(member -> Integer.parseInt(member.substring(member.lastIndexOf(':') + 1)))
              .toList();
      Matcher command = COMMAND.matcher(section.group(1));
      List<Integer> offsets = new ArrayList<>();
      String jar = null;
      while (command.find()) {
        offsets.add(Integer.parseInt(command.group(1)));
        jar = command.group(2);
      }
      assertThat(jar).isEqualTo("grid-node/target/sluice-node.jar");
      return new Example(memberPorts, offsets, jar);
    }

    /** Node {@code i} as the page starts it, everything shifted by {@code base}. */
    NodeProcess node(int i, int base, String cluster, Path work, int attempt) {
      Map<String, String> env = new HashMap<>();
      env.put(
          "SLUICE_MEMBERS",
          memberPorts.stream()
              .map(port -> "127.0.0.1:" + (port + base))
              .collect(Collectors.joining(",")));
      env.put("SLUICE_PORT_OFFSET", Integer.toString(offsets.get(i) + base));
      env.put("SLUICE_CLUSTER_NAME", cluster);
      // The page sets no Envoy or Redis port, so their shifted defaults apply; an empty variable
      // counts as unset (NodeProcess turns both off unless a test says otherwise).
      env.put("SLUICE_RLS_PORT", "");
      env.put("SLUICE_RESP_PORT", "");
      // From the repository's root, as the page says: the example rules of grid-node/rules.yaml.
      Path repository = Path.of(System.getProperty("user.dir")).getParent();
      return new NodeProcess(
          NodeProcess.jar(),
          env,
          work.toAbsolutePath().resolve("node-" + i + "-" + attempt + ".log"),
          repository);
    }
  }
}
