package dev.sluice.core.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/algorithms.md} documents the lease policy's constants in one table, generated from
 * {@link LeaseTuning#DEFAULT}'s {@link LeaseTuning#rows()}: name, value, meaning. When a constant
 * changes, this test fails and prints the table to paste.
 */
class LeaseTuningDocTest {
  static final String HEADER = "| constant | value | what it does |\n|---|---:|---|";

  @Test
  void tuningTable_isTheDefaultTuning() throws IOException {
    Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/algorithms.md");
    String text = Files.readString(doc);
    String expected = table(LeaseTuning.DEFAULT);

    assertThat(text)
        .as("docs/algorithms.md must contain exactly this table:\n\n" + expected + "\n")
        .contains(expected + "\n\n");
    assertThat(text.split("\\| constant \\| value \\|", -1)).as("one tuning table").hasSize(2);
  }

  @Test
  void rows_everyComponentOfTheRecord_once() {
    assertThat(LeaseTuning.DEFAULT.rows())
        .extracting(LeaseTuning.Row::name)
        .containsExactly(
            Arrays.stream(LeaseTuning.class.getRecordComponents())
                .map(RecordComponent::getName)
                .toArray(String[]::new));
  }

  static String table(LeaseTuning tuning) {
    return HEADER
        + "\n"
        + tuning.rows().stream()
            .map(row -> "| `" + row.name() + "` | " + row.value() + " | " + row.meaning() + " |")
            .collect(Collectors.joining("\n"));
  }
}
