package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three layers and the errors of each: a variable over the file over the default, and every
 * refusal naming its source (file, line and column; the variable; or the default) and the setting.
 */
class LayeredSettingsTest {
  enum Key implements LayeredSettings.Key {
    PORT("port", "80"),
    HOSTS("hosts", ""),
    COLOURS("colours", ""),
    DIR("dir", ""),
    WAIT("wait", "1s");

    private final String key;
    private final String defaultValue;

    Key(String key, String defaultValue) {
      this.key = key;
      this.defaultValue = defaultValue;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public String environmentVariable() {
      return "TEST_" + name();
    }

    @Override
    public String defaultValue() {
      return defaultValue;
    }
  }

  private static final List<String> COLOUR_NAMES = List.of("red", "green", "blue");

  @TempDir Path dir;

  @Test
  void load_variableOverFileOverDefault_blankVariableIgnored() throws IOException {
    Path file = write("port: 8080\nwait: 5s\n");

    LayeredSettings source =
        LayeredSettings.load(
            List.of(Key.values()), file, Map.of("TEST_PORT", " 9090 ", "TEST_WAIT", " "));

    assertThat(source.wholeNumber(Key.PORT)).isEqualTo(9090);
    assertThat(source.duration(Key.WAIT, Duration.ZERO, Duration.ofHours(1)))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(source.isSet(Key.DIR)).isFalse();
    assertThat(LayeredSettings.load(List.of(Key.values()), null, Map.of()).wholeNumber(Key.PORT))
        .isEqualTo(80);
  }

  @Test
  void itemsAndEntries_fileListsAndMappings_orCommaSeparatedText() throws IOException {
    Path file = write("hosts: [a:1, ' b:2 ']\ncolours: {sky: blue, grass: Green}\ndir: sub\n");
    LayeredSettings fromFile = LayeredSettings.load(List.of(Key.values()), file, Map.of());
    LayeredSettings fromVariables =
        LayeredSettings.load(
            List.of(Key.values()),
            null,
            Map.of("TEST_HOSTS", "a:1, b:2,", "TEST_COLOURS", "sky=blue, grass=green"));

    for (LayeredSettings source : List.of(fromFile, fromVariables)) {
      assertThat(source.items(Key.HOSTS)).containsExactly("a:1", "b:2");
      assertThat(colours(source))
          .containsExactly(Map.entry("sky", "blue"), Map.entry("grass", "green"));
    }
    assertThat(fromFile.path(Key.DIR)).isEqualTo(dir.resolve("sub").toAbsolutePath());
  }

  @Test
  void problems_nameTheSourceTheSettingAndWhatIsAccepted() throws IOException {
    Path file = write("port: http\ncolours: {sky: [blue]}\nhosts: {a: 1}\n");
    LayeredSettings fromFile = LayeredSettings.load(List.of(Key.values()), file, Map.of());
    LayeredSettings fromVariables =
        LayeredSettings.load(
            List.of(Key.values()), null, Map.of("TEST_PORT", "http", "TEST_COLOURS", "sky=pink"));

    assertThatThrownBy(() -> fromFile.wholeNumber(Key.PORT))
        .hasMessage(file + ":1:7: port: must be a whole number, was 'http'");
    assertThatThrownBy(() -> colours(fromFile))
        .hasMessage(
            file + ":2:16: colours.sky: must be one of red, green, blue, not a list or mapping");
    assertThatThrownBy(() -> fromFile.items(Key.HOSTS))
        .hasMessage(file + ":3:8: hosts: must be a plain value, not a mapping");
    assertThatThrownBy(() -> fromVariables.wholeNumber(Key.PORT))
        .hasMessage("environment variable TEST_PORT: port: must be a whole number, was 'http'");
    assertThatThrownBy(() -> colours(fromVariables))
        .hasMessage(
            "environment variable TEST_COLOURS: colours: sky: must be one of red, green, blue,"
                + " was 'pink'");
    assertThatThrownBy(() -> fromVariables.wholeNumber(Key.WAIT))
        .hasMessage("default: wait: must be a whole number, was '1s'");
  }

  @Test
  void load_unknownKeyOrNotAMapping_isRefusedAtLoad() throws IOException {
    Path typo = write("Port: 1\n");
    assertThatThrownBy(() -> LayeredSettings.load(List.of(Key.values()), typo, Map.of()))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage(
            typo
                + ":1:1: Port: unknown setting; the settings are: port, hosts, colours, dir, wait;"
                + " did you mean 'port'?");
    Path list = write("- port\n");
    assertThatThrownBy(() -> LayeredSettings.load(List.of(Key.values()), list, Map.of()))
        .hasMessage(list + ":1:1: expected a mapping of settings (key: value), found a list");
  }

  private static Map<String, String> colours(LayeredSettings source) {
    return source.entries(
        Key.COLOURS, "thing=colour", "sky=blue", COLOUR_NAMES, Function.identity());
  }

  private Path write(String yaml) throws IOException {
    return Files.writeString(Files.createTempFile(dir, "settings", ".yaml"), yaml);
  }
}
