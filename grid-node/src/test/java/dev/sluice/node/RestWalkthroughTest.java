package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/rest-api.md, "Inline keys: peek and reset", "Waiting, and permits in flight" and "Reserve,
 * then commit", run: every {@code $ curl ...} line of its console blocks is sent to a node started
 * here (in this JVM, on a frozen clock, so that delays and permit and reservation ids are the ones
 * printed) and its answer compared with the one printed below it, as {@link ReadmeIT} does for the
 * README.
 */
class RestWalkthroughTest {
  @TempDir Path dir;

  @Test
  void inlineKeys_commandsAnswerAsPrinted() throws Exception {
    runSection("### Inline keys: peek and reset", 2);
  }

  @Test
  void waitingAndPermits_commandsAnswerAsPrinted() throws Exception {
    runSection("## Waiting, and permits in flight", 8);
  }

  @Test
  void reserveThenCommit_commandsAnswerAsPrinted() throws Exception {
    runSection("## Reserve, then commit", 8);
  }

  /** Sends every command of the section to a fresh node and compares each answer as printed. */
  private void runSection(String heading, int atLeast) throws Exception {
    Path repository = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    String walkthrough =
        ConsoleTranscript.section(
            Files.readString(repository.resolve("docs/rest-api.md")), heading);
    List<ConsoleTranscript.Exchange> exchanges = ConsoleTranscript.exchanges(walkthrough);
    assertThat(exchanges).hasSizeGreaterThanOrEqualTo(atLeast);

    Path rules = Files.writeString(dir.resolve("rules.yaml"), "rules: []\n");
    int memberPort = TestNodes.freePort();
    ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    try (SluiceNode node =
        SluiceNode.start(
            NodeSettings.load(
                null,
                TestNodes.environment(
                    TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules)),
            clock)) {
      for (ConsoleTranscript.Exchange exchange : exchanges) {
        ConsoleTranscript.assertSameAnswer(
            exchange, ConsoleTranscript.run(exchange.command(), node.restPort()));
      }
    }
  }
}
