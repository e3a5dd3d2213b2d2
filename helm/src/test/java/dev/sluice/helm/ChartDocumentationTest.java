package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart documents itself: helm lint is clean in strict mode, every value is explained where it
 * stands in values.yaml, and docs/kubernetes.md has a row for every value.
 */
class ChartDocumentationTest {

  private static final Pattern KEY_LINE = Pattern.compile("^( *)([A-Za-z][A-Za-z0-9_]*):.*$");
  private static final Path DOCS =
      SluiceChart.CHART_DIR.resolve("../../docs/kubernetes.md").normalize();

  @Test
  void lint_strict_reportsNoWarningsOrErrors() {
    LintResult result = SluiceChart.lintStrict();

    assertThat(result.isFailed()).as("lint failed: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .filteredOn(m -> m.contains("[WARNING]") || m.contains("[ERROR]"))
        .isEmpty();
  }

  /** The default image tag is the appVersion, so it must name the version this build makes. */
  @Test
  void chartYaml_appVersion_isTheProjectsReleaseVersion() throws IOException {
    String projectVersion = System.getProperty("sluice.project.version");
    JsonNode chart =
        new YAMLMapper().readTree(SluiceChart.CHART_DIR.resolve("Chart.yaml").toFile());

    assertThat(projectVersion).as("surefire passes sluice.project.version").isNotBlank();
    assertThat(chart.path("appVersion").asText())
        .isEqualTo(projectVersion.replace("-SNAPSHOT", ""));
  }

  @Test
  void valuesYaml_everyValueHasACommentAboveItOrAboveItsParent() throws IOException {
    List<String> lines = Files.readAllLines(SluiceChart.CHART_DIR.resolve("values.yaml"));
    Map<String, Boolean> commented = commentedKeys(lines);
    List<String> undocumented = new ArrayList<>();

    forEachValue(
        path -> {
          boolean documented = false;
          for (String p = path; !p.isEmpty(); p = parent(p)) {
            documented |= commented.getOrDefault(p, false);
          }
          if (!documented) {
            undocumented.add(path);
          }
        });

    assertThat(undocumented).isEmpty();
  }

  @Test
  void kubernetesDoc_hasATableRowForEveryValue() throws IOException {
    String doc = Files.readString(DOCS);
    List<String> missing = new ArrayList<>();

    forEachValue(
        path -> {
          if (!doc.contains("| `" + path + "`")) {
            missing.add(path);
          }
        });

    assertThat(missing).as("values without a row in %s", DOCS).isEmpty();
  }

  private static void forEachValue(java.util.function.Consumer<String> action) throws IOException {
    JsonNode values =
        new YAMLMapper().readTree(SluiceChart.CHART_DIR.resolve("values.yaml").toFile());
    JsonNode schema =
        new ObjectMapper()
            .readTree(Files.readString(SluiceChart.CHART_DIR.resolve("values.schema.json")));
    ValuesTree.walk(values, schema, "", (path, value, schemaNode) -> action.accept(path));
  }

  /** Dotted key path → whether the line right above the key is a comment. */
  private static Map<String, Boolean> commentedKeys(List<String> lines) {
    Map<String, Boolean> commented = new HashMap<>();
    Deque<int[]> indents = new ArrayDeque<>();
    Deque<String> keys = new ArrayDeque<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = KEY_LINE.matcher(lines.get(i));
      if (!m.matches()) {
        continue;
      }
      int indent = m.group(1).length();
      while (!indents.isEmpty() && indents.peek()[0] >= indent) {
        indents.pop();
        keys.pop();
      }
      indents.push(new int[] {indent});
      keys.push(m.group(2));
      List<String> path = new ArrayList<>(keys);
      java.util.Collections.reverse(path);
      boolean commentAbove = i > 0 && lines.get(i - 1).strip().startsWith("#");
      commented.put(String.join(".", path), commentAbove);
    }
    return commented;
  }

  private static String parent(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? "" : path.substring(0, dot);
  }
}
