package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ManualTimeSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose port is taken stops with our one-line message only: neither Hazelcast's nor
 * Javalin's own ERROR and stack trace come before it (they would bury it at the top of a pod's
 * log). The node logs through slf4j-simple to {@code System.err}, read here while it starts.
 */
class PortTakenMessageTest {
  @TempDir Path dir;

  @Test
  void start_memberOrRestPortTaken_logsNoErrorOrStackTraceBeforeOurMessage() throws Exception {
    Path rules =
        Files.writeString(
            dir.resolve("rules.yaml"), "rules:\n  - {name: a, limit: 1, window: 1s}\n");
    ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Map<String, String> memberTaken =
          TestNodes.environment(TestNodes.uniqueClusterName(), port, List.of(port), rules);
      int memberPort = TestNodes.freePort();
      Map<String, String> restTaken =
          TestNodes.environment(
              TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules);
      restTaken.put("SLUICE_REST_PORT", Integer.toString(port));

      for (Map<String, String> env : List.of(memberTaken, restTaken)) {
        String log =
            stderrOf(
                () ->
                    assertThatThrownBy(() -> SluiceNode.start(NodeSettings.load(null, env), clock))
                        .isInstanceOf(NodeConfigException.class)
                        .hasMessageContaining("port " + port + " on 127.0.0.1 is already in use"));
        assertThat(log).as("what the node logged").doesNotContain("ERROR").doesNotContain("\tat ");
      }
    }
  }

  /** What {@code action} wrote to {@code System.err}. */
  private static String stderrOf(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    String text = captured.toString(StandardCharsets.UTF_8);
    original.print(text);
    return text;
  }
}
