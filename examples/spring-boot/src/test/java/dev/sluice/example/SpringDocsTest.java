package dev.sluice.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.ConsoleTranscript;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * docs/spring.md's "Start" is this example: its dependency block is the one in this module's
 * pom.xml, its YAML is {@code application.yml} (and client mode's {@code application-client.yml}),
 * its Java is the regions of {@link ExampleController} marked {@code // docs/spring.md: <name>},
 * and every {@code $ curl} of its console block is sent to the example started here on a free port,
 * the answer compared with the one printed (the README's {@code ReadmeIT} does the same for the
 * grid node).
 */
class SpringDocsTest {
  private static final Path MODULE = Path.of(System.getProperty("user.dir")).toAbsolutePath();
  private static final Path DOCS = MODULE.resolve("../../docs/spring.md").normalize();
  private static final Pattern REGION =
      Pattern.compile("// docs/spring\\.md: (\\S+)\\n(.*?)\\n\\s*// end", Pattern.DOTALL);

  @Test
  void start_snippets_areTheExamplesOwnFiles() throws IOException {
    String start = ConsoleTranscript.section(Files.readString(DOCS), "## Start");
    String pom = Files.readString(MODULE.resolve("pom.xml"));
    String version = pom.substring(pom.indexOf("<version>") + 9, pom.indexOf("</version>"));
    assertThat(pom.replace("${project.version}", version))
        .as("the dependency of docs/spring.md")
        .contains(block(start, "xml"));
    String yaml = Files.readString(MODULE.resolve("src/main/resources/application.yml"));
    assertThat(yaml).as("the YAML of docs/spring.md").isEqualTo(block(start, "yaml"));
    String readme = Files.readString(MODULE.resolve("../../README.md").normalize());
    assertThat(ConsoleTranscript.section(readme, "## Use it from Java"))
        .as("the README's copy")
        .contains("```yaml\n" + yaml + "```");
    String controller =
        Files.readString(MODULE.resolve("src/main/java/dev/sluice/example/ExampleController.java"));
    List<String> regions = new ArrayList<>();
    Matcher region = REGION.matcher(controller);
    while (region.find()) {
      regions.add(region.group(1));
      assertThat(start)
          .as("ExampleController's region '%s' in docs/spring.md", region.group(1))
          .contains(region.group(2).stripIndent());
    }
    assertThat(regions).containsExactly("hello", "invites");
    String modes =
        ConsoleTranscript.section(
            Files.readString(DOCS), "## Where the state lives (`sluice.mode`)");
    assertThat(Files.readString(MODULE.resolve("src/main/resources/application-client.yml")))
        .as("the client mode YAML of docs/spring.md")
        .isEqualTo(block(modes, "yaml"));
  }

  @Test
  void start_curlCalls_answerAsPrinted() throws Exception {
    String start = ConsoleTranscript.section(Files.readString(DOCS), "## Start");
    List<ConsoleTranscript.Exchange> exchanges = ConsoleTranscript.exchanges(start);
    assertThat(exchanges).hasSizeGreaterThanOrEqualTo(8);
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(ExampleApplication.class)
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--sluice.cluster-name=example-" + UUID.randomUUID(),
                "--sluice.embedded.port=" + freePort())) {
      int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
      for (ConsoleTranscript.Exchange exchange : exchanges) {
        ConsoleTranscript.assertSameAnswer(
            exchange, ConsoleTranscript.run(exchange.command(), port));
      }
    }
  }

  /** The first fenced block of {@code language} in {@code markdown}. */
  private static String block(String markdown, String language) {
    Matcher block =
        Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
    assertThat(block.find()).as("a ```%s block", language).isTrue();
    return block.group(1);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
