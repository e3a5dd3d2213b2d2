package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One test per kind of error a configuration file can have, each checking the file, line, column
 * and field the message names, and what it tells the reader to do.
 */
class StrictYamlTest {

  record Server(
      @Nullable String name,
      @Nullable Long port,
      @JsonProperty("tls_enabled") @Nullable Boolean tlsEnabled,
      @Nullable List<Route> routes,
      @JsonDeserialize(using = ScalarText.class) @Nullable String tag) {}

  record Route(@Nullable String path, @Nullable Integer weight) {
    Route {
      if (path != null && !path.startsWith("/")) {
        throw new IllegalArgumentException("path: must start with '/', was '" + path + "'");
      }
    }
  }

  private static final String VALID =
      """
      name: edge
      port: 8081
      tls_enabled: true
      routes:
        - path: /a
          weight: 1
        - path: /b
          weight: 2
      tag: 1.10
      """;

  @Test
  void parse_validFile_bindsEveryField() {
    Server server = StrictYaml.parse("server.yaml", VALID, Server.class).value();

    assertThat(server.name()).isEqualTo("edge");
    assertThat(server.port()).isEqualTo(8081L);
    assertThat(server.tlsEnabled()).isTrue();
    assertThat(server.routes()).containsExactly(new Route("/a", 1), new Route("/b", 2));
    assertThat(server.tag()).as("as written, not as the number 1.1").isEqualTo("1.10");
  }

  @Test
  void parse_leftOutFields_areNullOrFalse() {
    Server server = StrictYaml.parse("server.yaml", "name:\n", Server.class).value();

    assertThat(server.name()).isNull();
    assertThat(server.port()).isNull();
    assertThat(server.tlsEnabled()).isNull();
  }

  record Required(long id, @Nullable String label) {}

  @Test
  void parse_primitiveFieldLeftOut_isRequired() {
    assertThatThrownBy(() -> StrictYaml.parse("ids.yaml", "label: x\n", Required.class))
        .hasMessage("ids.yaml:1:1: id: is required (a whole number)");
    assertThatThrownBy(() -> StrictYaml.parse("ids.yaml", "id:\nlabel: x\n", Required.class))
        .hasMessage("ids.yaml:1:4: id: must be a whole number, found no value");
  }

  @Test
  void parse_unknownField_namesItWhereItIsWrittenAndSuggestsTheRightOne() {
    String yaml = VALID.replace("tls_enabled", "tlsEnabled");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage(
            "server.yaml:3:1: tlsEnabled: unknown field; the fields here are: name, port, routes,"
                + " tag, tls_enabled; did you mean 'tls_enabled'?")
        .satisfies(
            e -> {
              ConfigFileException error = (ConfigFileException) e;
              assertThat(error.source()).isEqualTo("server.yaml");
              assertThat(error.line()).isEqualTo(3);
              assertThat(error.column()).isEqualTo(1);
              assertThat(error.path()).isEqualTo("tlsEnabled");
            });
  }

  @Test
  void parse_unknownFieldInAListItem_namesTheItemByIndex() {
    String yaml = VALID.replace("    weight: 2", "    wieght: 2");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessageStartingWith("server.yaml:8:5: routes[1].wieght: unknown field;")
        .hasMessageContaining("the fields here are: path, weight");
  }

  @Test
  void parse_duplicateKey_namesTheSecondAndTheLineOfTheFirst() {
    String yaml = VALID.replace("tag: 1.10", "port: 9090");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage("server.yaml:9:1: port: appears twice in this mapping (first on line 2)");
  }

  @Test
  void parse_quotedNumber_saysToWriteItWithoutQuotes() {
    String yaml = VALID.replace("port: 8081", "port: \"8081\"");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage(
            "server.yaml:2:7: port: must be a whole number, found the text '8081' (write it"
                + " without quotes)");
  }

  @Test
  void parse_fractionForAWholeNumber_isRefused() {
    String yaml = VALID.replace("weight: 1", "weight: 1.5");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage(
            "server.yaml:6:13: routes[0].weight: must be a whole number, found the number 1.5");
  }

  @Test
  void parse_numberBeyondTheFieldsRange_isOutOfRange() {
    String yaml = VALID.replace("weight: 1", "weight: 4294967296");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage(
            "server.yaml:6:13: routes[0].weight: is out of range: the number 4294967296 does not"
                + " fit a 32-bit whole number");
  }

  @Test
  void parse_quotedBoolean_saysToWriteItWithoutQuotes() {
    String yaml = VALID.replace("tls_enabled: true", "tls_enabled: \"true\"");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage(
            "server.yaml:3:14: tls_enabled: must be true or false, found the text 'true' (write"
                + " it without quotes)");
  }

  @Test
  void parse_textForABoolean_isRefused() {
    String yaml = VALID.replace("tls_enabled: true", "tls_enabled: enabled");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage(
            "server.yaml:3:14: tls_enabled: must be true or false, found the text 'enabled'");
  }

  @Test
  void parse_yaml11BooleanWords_areTextNotBooleans() {
    for (String word : List.of("yes", "no", "on", "off", "Yes", "OFF")) {
      String yaml = VALID.replace("tls_enabled: true", "tls_enabled: " + word);
      assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
          .hasMessage(
              "server.yaml:3:14: tls_enabled: must be true or false, found the text '"
                  + word
                  + "'");
      assertThat(StrictYaml.parse("server.yaml", "name: " + word + "\n", Server.class).value())
          .extracting(Server::name)
          .as("a string field keeps the word as written")
          .isEqualTo(word);
    }
  }

  @Test
  void parse_listWhereOneValueBelongs_isRefused() {
    String yaml = VALID.replace("name: edge", "name: [edge, core]");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage("server.yaml:1:7: name: must be a string, found a list");
  }

  @Test
  void parse_numberWhereAStringBelongs_isRefusedUnlessTheFieldTakesScalarText() {
    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", "name: 42\n", Server.class))
        .hasMessage("server.yaml:1:7: name: must be a string, found the number 42");
    assertThat(StrictYaml.parse("server.yaml", "tag: 42\n", Server.class).value().tag())
        .isEqualTo("42");
    assertThat(StrictYaml.parse("server.yaml", "tag: true\n", Server.class).value().tag())
        .isEqualTo("true");
    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", "tag: {a: 1}\n", Server.class))
        .hasMessage("server.yaml:1:6: tag: must be a string, found a mapping");
  }

  @Test
  void parse_notYaml_namesTheLineAndColumnOfTheProblem() {
    String yaml = "name: edge\nroutes:\n  - path: /a\n   weight: 1\n";

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .isInstanceOf(ConfigFileException.class)
        .hasMessageStartingWith("server.yaml:4:")
        .hasMessageContaining("not valid YAML:")
        .satisfies(e -> assertThat(((ConfigFileException) e).path()).isNull());
  }

  @Test
  void parse_emptyText_saysWhatWasExpected() {
    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", "# nothing yet\n", Server.class))
        .hasMessage("server.yaml: is empty; expected a mapping (key: value)");
  }

  @Test
  void parse_listAtTheTop_saysAMappingWasExpected() {
    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", "- a\n- b\n", Server.class))
        .hasMessage("server.yaml:1:1: expected a mapping (key: value), found a list");
  }

  @Test
  void parse_secondDocument_isRefused() {
    String yaml = VALID + "---\nname: other\n";

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessageStartingWith("server.yaml:11:")
        .hasMessageContaining("holds one YAML document; found a second one");
  }

  @Test
  void parse_constructorRefusesAValue_isLocatedAtTheObject() {
    String yaml = VALID.replace("path: /b", "path: b");

    assertThatThrownBy(() -> StrictYaml.parse("server.yaml", yaml, Server.class))
        .hasMessage("server.yaml:7:5: routes[1]: path: must start with '/', was 'b'");
  }

  @Test
  void problem_afterBinding_pointsAtTheValueWritten() {
    StrictYaml.Parsed<Server> parsed = StrictYaml.parse("server.yaml", VALID, Server.class);

    ConfigFileException error = parsed.problem("routes[1].weight", "must be 1");

    assertThat(error).hasMessage("server.yaml:8:13: routes[1].weight: must be 1");
  }

  @Test
  void problem_fieldTheFileLeftOut_pointsAtTheMappingThatLacksIt() {
    StrictYaml.Parsed<Server> parsed =
        StrictYaml.parse("server.yaml", "name: edge\nroutes:\n  - path: /a\n", Server.class);

    ConfigFileException error = parsed.problem("routes[0].weight", "is required");

    assertThat(error).hasMessage("server.yaml:3:5: routes[0].weight: is required");
  }

  @Test
  void parse_indexedFirst_keepsTheScalarsAsWrittenForTheCallersMessages() {
    YamlLocations locations = YamlLocations.index("server.yaml", VALID + "port2: 0123\n");

    assertThatThrownBy(() -> StrictYaml.parse(locations, VALID + "port2: 0123\n", Server.class))
        .hasMessageStartingWith("server.yaml:10:1: port2: unknown field;");
    assertThat(locations.scalar("name")).isEqualTo("edge");
    assertThat(locations.scalar("tag")).isEqualTo("1.10");
    assertThat(locations.scalar("port2")).as("not the number 83").isEqualTo("0123");
    assertThat(locations.scalar("routes")).as("a list is no scalar").isNull();
  }

  @Test
  void read_file_namesTheFileInErrors(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("server.yaml"), "port: x\n");

    assertThatThrownBy(() -> StrictYaml.read(file, Server.class))
        .hasMessage(file + ":1:7: port: must be a whole number, found the text 'x'");
    assertThatThrownBy(() -> StrictYaml.read(dir.resolve("nope.yaml"), Server.class))
        .hasMessage(dir.resolve("nope.yaml") + ": no such file");
    Path latin1 = Files.write(dir.resolve("latin1.yaml"), new byte[] {'n', ':', ' ', (byte) 0xe9});
    assertThatThrownBy(() -> StrictYaml.read(latin1, Server.class))
        .hasMessage(latin1 + ": is not UTF-8 text; save it as UTF-8");
  }
}
