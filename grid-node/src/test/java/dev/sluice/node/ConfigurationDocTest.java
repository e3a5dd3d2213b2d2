package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.rules.RulesFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} documents every setting in one table, generated from {@link
 * Setting}: key, environment variable, default and meaning. When a setting changes, this test fails
 * and prints the table to paste. Its rules examples are rules the node loads.
 */
class ConfigurationDocTest {
  static final String HEADER =
      "| YAML key | environment variable | default | meaning |\n|---|---|---|---|";

  @Test
  void settingsTable_isTheSettingEnum() throws IOException {
    Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/configuration.md");
    String text = Files.readString(doc);
    String expected = table();
    assertThat(text)
        .as("docs/configuration.md must contain exactly this table:\n\n" + expected + "\n")
        .contains(expected + "\n\n");
    assertThat(text.split("\\| YAML key \\|", -1)).as("one settings table").hasSize(2);
  }

  /**
   * The rules examples of the docs (configuration.md's, and kubernetes.md's chart values, whose
   * {@code rules:} list the chart writes out as the rules file) and the example rules file load
   * with the node's parser.
   */
  @Test
  void rulesExamples_loadWithTheNodesParser() throws IOException {
    Path repository = Path.of(System.getProperty("user.dir")).getParent();
    int examples = 0;
    for (String doc : List.of("docs/configuration.md", "docs/kubernetes.md")) {
      Matcher block = YAML_BLOCK.matcher(Files.readString(repository.resolve(doc)));
      while (block.find()) {
        if (block.group(1).startsWith("rules:")) {
          assertThat(RulesFile.parse(doc, block.group(1))).as(doc).isNotEmpty();
          examples++;
        }
      }
    }
    assertThat(examples).as("rules examples in the docs").isGreaterThanOrEqualTo(3);
    assertThat(RulesFile.load(repository.resolve("grid-node/rules.yaml")))
        .anyMatch(rule -> rule.policy().limits().size() > 1);
  }

  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL);

  static String table() {
    List<String> rows =
        Arrays.stream(Setting.values())
            .map(
                setting ->
                    "| `"
                        + setting.key()
                        + "` | `"
                        + setting.environmentVariable()
                        + "` | "
                        + (setting.defaultValue().isEmpty()
                            ? "(none)"
                            : "`" + setting.defaultValue() + "`")
                        + " | "
                        + setting.description()
                        + " |")
            .collect(Collectors.toList());
    return HEADER + "\n" + String.join("\n", rows);
  }
}
