package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The IDE metadata the configuration processor generates for {@code sluice.*}. Boot's metadata has
 * no entries for the keys of a list's elements ({@code sluice.gates[0].rule}): it describes {@code
 * sluice.gates} and {@code sluice.rules} as lists of {@link GateProperties} and {@link
 * SluiceProperties.RuleProperties}, from which IntelliJ and Spring Tools complete the element keys,
 * and whose descriptions (shown on hover, and by IDEs that read only the metadata) name every key
 * of the element. This test keeps those descriptions whole when a key is added.
 */
class ConfigurationMetadataTest {

  @Test
  void listProperties_nameTheirElementType_andEveryKeyOfIt() throws IOException {
    JsonNode gates = property("sluice.gates");
    assertThat(gates.get("type").asText())
        .isEqualTo("java.util.List<dev.sluice.spring.GateProperties>");
    assertThat(gates.get("description").asText()).contains(keys(GateProperties.class));

    JsonNode rules = property("sluice.rules");
    assertThat(rules.get("type").asText())
        .isEqualTo("java.util.List<dev.sluice.spring.SluiceProperties$RuleProperties>");
    assertThat(rules.get("description").asText())
        .contains(keys(SluiceProperties.RuleProperties.class));
  }

  @Test
  void callTimeout_defaultIsInTheMetadata() throws IOException {
    assertThat(property("sluice.call-timeout").get("defaultValue").asText()).isEqualTo("500ms");
  }

  /** The keys Boot binds on {@code type}, as written in YAML ({@code key-header}). */
  private static String[] keys(Class<?> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(RecordComponent::getName)
        .map(SluicePropertiesValidator::dashed)
        .toArray(String[]::new);
  }

  private static JsonNode property(String name) throws IOException {
    try (InputStream metadata =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      JsonNode properties =
          new ObjectMapper().readTree(Objects.requireNonNull(metadata)).get("properties");
      List<JsonNode> named =
          StreamSupport.stream(properties.spliterator(), false)
              .filter(property -> property.get("name").asText().equals(name))
              .toList();
      assertThat(named).as(name).hasSize(1);
      return named.get(0);
    }
  }
}
