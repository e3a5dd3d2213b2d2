package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sluice.core.test.DebianPackages;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alert rules, rendered with the default values, pass Prometheus's own checks: {@code
 * promtool check rules} (they parse) and {@code promtool test rules} with the fixtures of {@code
 * alerts-test.yaml} (each alert fires on the series it is about, with its labels and text, and not
 * before its {@code for}; a quiet rule, a closed breaker and an accepted rules file do not fire).
 */
class AlertRulesTest {
  @TempDir Path dir;

  @BeforeAll
  static void promtool() {
    DebianPackages.require("prometheus");
  }

  @Test
  void alertRules_passPromtoolsChecksAndUnitTests() throws Exception {
    JsonNode rule =
        SluiceChart.withDefaults()
            .set("metrics.prometheusRule.enabled", true)
            .render()
            .one("PrometheusRule");
    ObjectNode rules = JsonNodeFactory.instance.objectNode();
    rules.set("groups", rule.at("/spec/groups"));
    Path rulesFile = dir.resolve("rules.yaml");
    new YAMLMapper().writeValue(rulesFile.toFile(), rules);
    Path tests = dir.resolve("alerts-test.yaml");
    try (InputStream in = AlertRulesTest.class.getResourceAsStream("alerts-test.yaml")) {
      Files.copy(in, tests);
    }

    assertThat(promtool("check", "rules", rulesFile.toString())).startsWith("0:");
    assertThat(promtool("test", "rules", tests.toString())).startsWith("0:");
  }

  /** Runs promtool; answers its exit status and output as {@code "status: output"}. */
  private String promtool(String... arguments) throws IOException, InterruptedException {
    String[] command = new String[arguments.length + 1];
    command[0] = "promtool";
    System.arraycopy(arguments, 0, command, 1, arguments.length);
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return "timeout: " + output;
    }
    return process.exitValue() + ": " + output;
  }
}
