package dev.sluice.bench.load;

import dev.sluice.bench.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/benchmarks.md as a template and the blocks a run fills in. The template ({@value #TEMPLATE}
 * beside this class, in {@code benchmarks/src/main/resources}) holds the hand-written prose and, on
 * a line of its own, {@code <!-- generated:NAME -->} where each generated block goes. A page holds
 * each block between {@code <!-- generated:NAME begin -->} and {@code <!-- generated:NAME end -->}.
 * {@link Report} fills every block from a run; this class's main puts a page's blocks back into the
 * template after the prose changed, without a run:
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.load.BenchmarksPage docs/benchmarks.md
 * </pre>
 *
 * {@code BenchmarksPageTest} fails when docs/benchmarks.md is not its template with its own blocks,
 * so prose edited in the page instead of the template cannot be lost to the next run.
 */
public final class BenchmarksPage {
  /** The template's resource name, beside this class. */
  static final String TEMPLATE = "benchmarks-page.md";

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.load.BenchmarksPage docs/benchmarks.md
      """;

  private static final Pattern SLOT =
      Pattern.compile("^<!-- generated:([a-z0-9-]+) -->$", Pattern.MULTILINE);
  private static final Pattern BLOCK =
      Pattern.compile(
          "^<!-- generated:([a-z0-9-]+) begin -->\\n(.*?)^<!-- generated:\\1 end -->$",
          Pattern.MULTILINE | Pattern.DOTALL);

  private BenchmarksPage() {}

  public static void main(String[] args) throws IOException {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    Path page = Path.of(args.length > 0 ? args[0] : "docs/benchmarks.md");
    String rendered = render(template(), blocks(Files.readString(page, StandardCharsets.UTF_8)));
    Files.writeString(page, rendered, StandardCharsets.UTF_8);
    System.out.println("rendered " + page + " from " + TEMPLATE);
  }

  /** The template, from the classpath. */
  static String template() {
    try (InputStream in = BenchmarksPage.class.getResourceAsStream(TEMPLATE)) {
      if (in == null) {
        throw new IllegalStateException(TEMPLATE + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names of the template's blocks, in order. */
  static List<String> slots(String template) {
    List<String> names = new ArrayList<>();
    Matcher matcher = SLOT.matcher(template);
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }

  /** {@code template} with each slot replaced by its block; every slot must have one. */
  static String render(String template, Map<String, String> blocks) {
    Matcher matcher = SLOT.matcher(template);
    StringBuilder page = new StringBuilder();
    while (matcher.find()) {
      String name = matcher.group(1);
      String block = blocks.get(name);
      if (block == null) {
        throw new IllegalArgumentException("no block for <!-- generated:" + name + " -->");
      }
      String filled =
          "<!-- generated:"
              + name
              + " begin -->\n"
              + block.strip()
              + "\n<!-- generated:"
              + name
              + " end -->";
      matcher.appendReplacement(page, Matcher.quoteReplacement(filled));
    }
    matcher.appendTail(page);
    return page.toString();
  }

  /** The blocks of a rendered page, by name. */
  static Map<String, String> blocks(String page) {
    Map<String, String> blocks = new LinkedHashMap<>();
    Matcher matcher = BLOCK.matcher(page);
    while (matcher.find()) {
      blocks.put(matcher.group(1), matcher.group(2));
    }
    return blocks;
  }
}
