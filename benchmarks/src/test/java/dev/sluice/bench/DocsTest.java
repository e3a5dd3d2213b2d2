package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs pages ({@code docs/*.md}, {@code docs/decisions/*.md}) read as the product's own: their
 * links lead somewhere, the benchmark classes they name exist, they cite no design file the
 * repository does not have, and none reads as a work diary. The source code cites the docs the same
 * way.
 */
class DocsTest {
  static final Path REPOSITORY = Path.of(System.getProperty("user.dir")).getParent();
  static final Path DOCS = REPOSITORY.resolve("docs");

  /**
   * A relative link: {@code [text](decisions/README.md#anchor)}; not a URL, not an anchor alone.
   */
  static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s:]+)(?:#[^)]*)?\\)");

  /** A design document outside the repository, cited by section. */
  static final Pattern DESIGN = Pattern.compile("\\bDESIGN\\b");

  /** A page written as a diary of work sessions rather than about the product. */
  static final Pattern DIARY =
      Pattern.compile(
          "(?i)\\bsessions?\\b|\\b\\d{4}-\\d{2}-\\d{2},? (late|night|evening|afternoon|morning)\\b"
              + "|\\bthe same (night|evening|afternoon)\\b");

  static List<Path> pages() {
    try (Stream<Path> top = Files.list(DOCS);
        Stream<Path> decisions = Files.list(DOCS.resolve("decisions"))) {
      return Stream.concat(top, decisions).filter(p -> p.toString().endsWith(".md")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> matches(Pattern pattern, String text, int group) {
    List<String> found = new ArrayList<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(group));
    }
    return found;
  }

  @Test
  void everyRelativeLink_leadsToAFile() {
    assertThat(pages()).hasSizeGreaterThan(20);
    for (Path page : pages()) {
      assertThat(matches(LINK, read(page), 1))
          .as("links of %s", DOCS.relativize(page))
          .allSatisfy(link -> assertThat(page.resolveSibling(link)).exists());
    }
  }

  @Test
  void everyBenchmarkClassNamed_exists() {
    Pattern benchmarkClass =
        Pattern.compile("\\bdev\\.sluice\\.bench(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*");
    for (Path page : pages()) {
      assertThat(matches(benchmarkClass, read(page), 0))
          .as("benchmark classes named in %s", DOCS.relativize(page))
          .allSatisfy(name -> Class.forName(name, false, DocsTest.class.getClassLoader()));
    }
  }

  @Test
  void noPage_citesADesignFileTheRepositoryDoesNotHave() {
    for (Path page : pages()) {
      assertThat(matches(DESIGN, read(page), 0)).as("%s", DOCS.relativize(page)).isEmpty();
    }
  }

  @Test
  void noSourceFile_citesADesignFileTheRepositoryDoesNotHave() throws IOException {
    List<Path> sources;
    try (Stream<Path> files = Files.walk(REPOSITORY)) {
      sources =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/"))
              .filter(p -> !p.getFileName().toString().equals("DocsTest.java")) // the pattern
              .toList();
    }
    assertThat(sources).hasSizeGreaterThan(100);
    assertThat(sources)
        .filteredOn(source -> DESIGN.matcher(read(source)).find())
        .as("source files citing DESIGN")
        .isEmpty();
  }

  @Test
  void noPage_readsAsADiary() {
    for (Path page : pages()) {
      assertThat(matches(DIARY, read(page), 0)).as("%s", DOCS.relativize(page)).isEmpty();
    }
  }

  @Test
  void architecture_isLinkedFromThePagesItExplains() {
    List<String> linking =
        pages().stream()
            .filter(page -> matches(LINK, read(page), 1).contains("architecture.md"))
            .map(page -> page.getFileName().toString())
            .toList();

    assertThat(linking).contains("algorithms.md", "grid.md", "client.md", "rest-api.md");
  }

  /** A newcomer finds every page from the README in one click, and the decision records too. */
  @Test
  void readme_linksEveryPage() throws IOException {
    String readme = read(REPOSITORY.resolve("README.md"));
    List<String> links = matches(LINK, readme, 1);
    List<String> topPages;
    try (Stream<Path> top = Files.list(DOCS)) {
      topPages =
          top.filter(p -> p.toString().endsWith(".md"))
              .map(p -> "docs/" + p.getFileName())
              .sorted()
              .toList();
    }
    assertThat(topPages).hasSizeGreaterThan(10);
    assertThat(links)
        .as("README's links")
        .containsAll(topPages)
        .contains("docs/decisions/README.md");
  }
}
