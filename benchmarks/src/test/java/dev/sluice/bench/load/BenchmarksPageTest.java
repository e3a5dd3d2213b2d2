package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/benchmarks.md is one page, generated: its template with the blocks of the last full run.
 * Prose edited in the page instead of the template would be lost to the next run, so it fails here.
 */
class BenchmarksPageTest {
  static final Path DOCS = Path.of(System.getProperty("user.dir")).getParent().resolve("docs");
  static final Path PAGE = DOCS.resolve("benchmarks.md");

  /** A relative link of a Markdown page: {@code [text](decisions/README.md#anchor)}. */
  static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s:]+)(?:#[^)]*)?\\)");

  static String page() throws IOException {
    return Files.readString(PAGE, StandardCharsets.UTF_8);
  }

  @Test
  void page_isItsTemplateAroundItsOwnBlocks() throws IOException {
    String page = page();

    assertThat(page)
        .as(
            "docs/benchmarks.md must be its template with its blocks: edit the prose in"
                + " benchmarks/src/main/resources/dev/sluice/bench/load/%s, then run"
                + " dev.sluice.bench.load.BenchmarksPage (its --help says how)",
            BenchmarksPage.TEMPLATE)
        .isEqualTo(BenchmarksPage.render(BenchmarksPage.template(), BenchmarksPage.blocks(page)));
  }

  @Test
  void page_hasEveryBlockOfTheTemplate_filled() throws IOException {
    Map<String, String> blocks = BenchmarksPage.blocks(page());

    assertThat(blocks).containsOnlyKeys(BenchmarksPage.slots(BenchmarksPage.template()));
    assertThat(blocks.values()).allSatisfy(block -> assertThat(block).isNotBlank());
    assertThat(blocks.get("run")).contains("- Command: `benchmarks/run.sh").contains("- Date: ");
  }

  @Test
  void page_fitsOnOnePage() throws IOException {
    assertThat(Files.readAllLines(PAGE, StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(250);
  }

  @Test
  void page_linksOnlyToFilesThatExist() throws IOException {
    List<String> links = new ArrayList<>();
    Matcher matcher = LINK.matcher(page());
    while (matcher.find()) {
      links.add(matcher.group(1));
    }

    assertThat(links).isNotEmpty();
    assertThat(links).allSatisfy(link -> assertThat(DOCS.resolve(link)).exists());
  }

  @Test
  void blocks_ofARenderedPage_renderItAgain() {
    String template = "# T\n\nprose\n\n<!-- generated:run -->\n\nmore\n\n<!-- generated:b-2 -->\n";
    String page = BenchmarksPage.render(template, Map.of("run", "line 1\nline 2\n", "b-2", "x"));

    assertThat(page)
        .isEqualTo(
            "# T\n\nprose\n\n<!-- generated:run begin -->\nline 1\nline 2\n"
                + "<!-- generated:run end -->\n\nmore\n\n"
                + "<!-- generated:b-2 begin -->\nx\n<!-- generated:b-2 end -->\n");
    assertThat(BenchmarksPage.render(template, BenchmarksPage.blocks(page))).isEqualTo(page);
    assertThat(BenchmarksPage.slots(template)).containsExactly("run", "b-2");
  }

  @Test
  void render_aSlotWithoutItsBlock_isRefused() {
    assertThatThrownBy(() -> BenchmarksPage.render("<!-- generated:run -->\n", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("generated:run");
  }
}
