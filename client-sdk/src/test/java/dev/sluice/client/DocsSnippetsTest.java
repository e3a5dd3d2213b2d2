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
 * The code in docs/client.md and docs/shadow-ban.md is the code of the tests: every region a test
 * marks with {@code // docs/<page>.md: <name>} ... {@code // end} appears in that page verbatim
 * (indentation removed), so the examples there compile and run.
 */
class DocsSnippetsTest {
  private static final Pattern REGION =
      Pattern.compile(
          "// docs/(client|shadow-ban)\\.md: (\\S+)\\n(.*?)\\n\\s*// end", Pattern.DOTALL);
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void docs_everyMarkedTestRegion_appearsVerbatim() throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "test", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher region = REGION.matcher(Files.readString(source));
        while (region.find()) {
          String page = region.group(1) + ".md";
          String doc = Files.readString(Path.of("..", "docs", page));
          names.add(region.group(2));
          assertThat(doc)
              .as("docs/%s snippet '%s' from %s", page, region.group(2), source.getFileName())
              .contains(dedent(region.group(3)));
        }
      }
    }
    assertThat(names)
        .contains(
            "embedded",
            "client",
            "javalin",
            "servlet",
            "spring",
            "spring-client",
            "webflux",
            "gate");
  }

  /**
   * The regions above prove that a block's first lines compile; what the page adds around them (a
   * closing brace) is checked here: a reader who copies a block gets balanced brackets.
   */
  @Test
  void docs_everyJavaBlock_hasBalancedBrackets() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "client.md"));
    Matcher block = JAVA_BLOCK.matcher(doc);
    int blocks = 0;
    while (block.find()) {
      blocks++;
      String code = block.group(1).replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"");
      code = code.replaceAll("//[^\n]*", "");
      int line = doc.substring(0, block.start()).split("\n", -1).length;
      for (String pair : List.of("{}", "()", "[]")) {
        assertThat(count(code, pair.charAt(1)))
            .as(
                "docs/client.md line %d: java block's '%s' and '%s'",
                line, pair.charAt(0), pair.charAt(1))
            .isEqualTo(count(code, pair.charAt(0)));
      }
    }
    assertThat(blocks).isGreaterThanOrEqualTo(6);
  }

  private static long count(String text, char c) {
    return text.chars().filter(ch -> ch == c).count();
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
