package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.NodeSettings.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} documents every setting in one table, generated from {@link
 * Setting}: key, environment variable, default and meaning. When a setting changes, this test fails
 * and prints the table to paste.
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
