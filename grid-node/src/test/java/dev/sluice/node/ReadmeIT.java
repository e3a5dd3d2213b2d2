package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's "Try it" section, run: its start command is the one this test runs (the jar, from
 * the repository root, with the bundled example rules), and every {@code $ curl ...} line in its
 * console block is sent to the started node and its answer compared with the one printed below it.
 *
 * <p>The comparison is {@link ConsoleTranscript}'s.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class ReadmeIT {
  static final String RUN_COMMAND =
      "./mvnw -q -DskipTests package && java -jar grid-node/target/sluice-node.jar";

  private NodeProcess node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void tryIt_commandsAnswerAsPrinted() throws Exception {
    Path repository = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    String tryIt =
        ConsoleTranscript.section(Files.readString(repository.resolve("README.md")), "## Try it");
    assertThat(tryIt).as("the README's run command").contains("```sh\n" + RUN_COMMAND + "\n```");
    List<ConsoleTranscript.Exchange> exchanges = ConsoleTranscript.exchanges(tryIt);
    assertThat(exchanges).hasSizeGreaterThanOrEqualTo(5);

    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_MEMBER_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_CLUSTER_NAME", TestNodes.uniqueClusterName());
    Path log =
        Files.createDirectories(Path.of("target").toAbsolutePath()).resolve("readme-it-node.log");
    node =
        new NodeProcess(
                repository.resolve("grid-node/target/sluice-node.jar"), env, log, repository)
            .start();
    node = TestNodes.awaitReady(node, Duration.ofSeconds(120));
    int restPort = node.restPort();

    for (ConsoleTranscript.Exchange exchange : exchanges) {
      String actual = ConsoleTranscript.run(exchange.command(), restPort);
      ConsoleTranscript.assertSameAnswer(exchange, actual);
    }
  }
}
