package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The code in docs/client.md is the code of the tests: every region a test marks with {@code //
 * docs/client.md: <name>} ... {@code // end} appears in the document verbatim (indentation
 * removed), so the examples there compile and run.
 */
class DocsSnippetsTest {
  private static final Pattern REGION =
      Pattern.compile("// docs/client\\.md: (\\S+)\\n(.*?)\\n\\s*// end", Pattern.DOTALL);

  @Test
  void docs_everyMarkedTestRegion_appearsVerbatim() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "client.md"));
    List<String> names = new ArrayList<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "test", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher region = REGION.matcher(Files.readString(source));
        while (region.find()) {
          names.add(region.group(1));
          assertThat(doc)
              .as("docs/client.md snippet '%s' from %s", region.group(1), source.getFileName())
              .contains(dedent(region.group(2)));
        }
      }
    }
    assertThat(names)
        .contains("embedded", "client", "javalin", "servlet", "spring", "spring-client");
  }

  private static String dedent(String text) {
    List<String> lines = text.lines().toList();
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return out.toString().stripTrailing();
  }
}
