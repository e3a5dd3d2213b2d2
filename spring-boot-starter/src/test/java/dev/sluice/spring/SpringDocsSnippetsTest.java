package dev.sluice.spring;

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
 * The Java of docs/spring.md beyond its start (which is examples/spring-boot's, checked there) is
 * the code of this module's tests: every region a test marks with {@code // docs/spring.md: <name>}
 * ... {@code // end} appears in that page verbatim (indentation removed), as client-sdk's
 * DocsSnippetsTest does for docs/client.md.
 */
class SpringDocsSnippetsTest {
  private static final Pattern REGION =
      Pattern.compile("// docs/spring\\.md: (\\S+)\\n(.*?)\\n\\s*// end", Pattern.DOTALL);

  @Test
  void docs_everyMarkedTestRegion_appearsVerbatim() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "spring.md"));
    List<String> names = new ArrayList<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "test", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher region = REGION.matcher(Files.readString(source));
        while (region.find()) {
          names.add(region.group(1));
          assertThat(doc)
              .as("docs/spring.md snippet '%s' from %s", region.group(1), source.getFileName())
              .contains(region.group(2).stripIndent());
        }
      }
    }
    assertThat(names).contains("fallback", "shadow-ban");
  }
}
