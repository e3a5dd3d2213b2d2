package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.FailurePolicy;
import dev.sluice.core.Rule;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.rules.InMemoryRuleStore;
import dev.sluice.core.rules.RulesFile;
import dev.sluice.core.rules.RulesFileWatcher;
import dev.sluice.core.rules.RulesFileWatcher.Outcome;
import dev.sluice.core.test.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded fuzz of the two configuration inputs: the rules file and the node settings. Every broken
 * input must fail with the input's own exception type and a message that says where (file, line,
 * column) and what (the field or setting), never with a parser's or the JVM's exception; and a
 * broken hot reload must keep the rules that were in force. The seeds come from {@link Seeds}: a
 * failure says how to replay it.
 */
@ExtendWith(Seeds.class)
class ConfigFuzzTest {
  private static final String VALID =
      """
      rules:
        - name: login
          algorithm: sliding_window
          limit: 5
          window: 1m
        - name: api
          algorithm: gcra
          limit: 100
          window: 1s
          burst: 20
          shadow: true
        - name: buckets
          algorithm: sliding_buckets
          limit: 600
          window: 1h
          buckets: 60
          countDenied: false
      """;
  private static final Pattern LOCATION = Pattern.compile("^rules\\.yaml:\\d+:\\d+: .+");
  private static final List<String> WRONG_VALUES =
      List.of(
          "0",
          "-1",
          "abc",
          "1.5",
          "\"5\"",
          "99999999999999999999",
          "[1, 2]",
          "{a: 1}",
          "",
          "~",
          "true",
          "0s",
          "-1m",
          "1y",
          "PT0S",
          "31d",
          "no_such_algorithm",
          "'login'",
          "&anchor x",
          "*alias",
          "!!binary aGk=",
          "\"\\u0000\"",
          "1e3");

  @TempDir Path dir;

  /** One random edit of the valid file; returns the text and the field it changed (or null). */
  private static Mutation mutate(Random random) {
    List<String> lines = new ArrayList<>(List.of(VALID.split("\n")));
    int at = 1 + random.nextInt(lines.size() - 1);
    String line = lines.get(at);
    String field = null;
    switch (random.nextInt(8)) {
      case 0, 1, 2 -> {
        int colon = line.indexOf(':');
        if (colon > 0) {
          field = line.substring(0, colon).replace("-", "").trim();
          lines.set(at, line.substring(0, colon + 1) + " " + pick(random, WRONG_VALUES));
        }
      }
      case 3 -> lines.remove(at);
      case 4 -> lines.add(at, line);
      case 5 -> lines.set(at, " ".repeat(random.nextInt(7)) + line.trim());
      case 6 ->
          lines.add(at, "    " + pick(random, List.of("limt", "Window", "ttl", "name2")) + ": 1");
      default -> {
        char[] chars = line.toCharArray();
        if (chars.length > 0) {
          chars[random.nextInt(chars.length)] =
              pick(random, List.of(':', '-', '\t', '"', '{', '#', '\u00e9'));
        }
        lines.set(at, new String(chars));
      }
    }
    return new Mutation(String.join("\n", lines) + "\n", field);
  }

  private record Mutation(String text, String field) {}

  @Test
  void rulesFile_seededMutations_failWithFileLineColumnAndField() {
    Random random = Seeds.random();
    int accepted = 0;
    int rejected = 0;
    int namingField = 0;
    for (int i = 0; i < 2_000; i++) {
      Mutation mutation = mutate(random);
      try {
        RulesFile.parse("rules.yaml", mutation.text());
        accepted++;
      } catch (ConfigFileException e) {
        rejected++;
        assertThat(e.getMessage()).as("message for:\n%s", mutation.text()).matches(LOCATION);
        if (mutation.field() != null && !mutation.field().isEmpty()) {
          // A wrong value is reported against its own field (or, for a name, against the rule).
          if (e.getMessage().contains(mutation.field())) {
            namingField++;
          } else {
            assertThat(e.getMessage())
                .as("message for a wrong %s:\n%s", mutation.field(), mutation.text())
                .containsAnyOf("rule", "rules", mutation.field());
          }
        }
      } catch (RuntimeException e) {
        throw new AssertionError("not a ConfigFileException for:\n" + mutation.text(), e);
      }
    }
    System.out.printf(
        "rules-file fuzz: 2000 mutations, %d accepted (still valid), %d rejected with file:line:col,"
            + " %d of them naming the mutated field%n",
        accepted, rejected, namingField);
    assertThat(rejected).isGreaterThan(1_000);
  }

  @Test
  void hotReload_randomBrokenAndValidEdits_brokenOnesKeepThePreviousRules() throws IOException {
    Random random = Seeds.random();
    Path file = Files.writeString(dir.resolve("rules.yaml"), VALID);
    InMemoryRuleStore store = new InMemoryRuleStore();
    RulesFileWatcher watcher = new RulesFileWatcher(file, store, Duration.ofSeconds(1));
    watcher.loadInitial();
    List<Rule> inForce = sorted(store.all());
    int applied = 0;
    int rejected = 0;
    for (int i = 0; i < 300; i++) {
      String text =
          random.nextInt(4) == 0
              ? VALID.replace("limit: 5", "limit: " + (1 + i))
              : mutate(random).text();
      Files.writeString(file, text);
      Outcome outcome = watcher.poll();
      if (outcome == Outcome.REJECTED) {
        rejected++;
        assertThat(sorted(store.all()))
            .as("rules after a rejected edit:\n%s", text)
            .isEqualTo(inForce);
      } else if (outcome == Outcome.APPLIED) {
        applied++;
        inForce = sorted(store.all());
        assertThat(inForce).isEqualTo(sorted(RulesFile.parse("rules.yaml", text)));
      } else {
        assertThat(sorted(store.all())).isEqualTo(inForce);
      }
    }
    System.out.printf(
        "hot-reload fuzz: 300 edits, %d applied, %d rejected (rules kept)%n", applied, rejected);
    assertThat(rejected).isPositive();
    assertThat(applied).isPositive();
  }

  @Test
  void nodeSettings_randomValuesForEverySetting_failNamingTheSetting() {
    Random random = Seeds.random();
    int rejected = 0;
    int tried = 0;
    for (Setting setting : Setting.values()) {
      for (int i = 0; i < 12; i++) {
        String value = pick(random, WRONG_VALUES) + (random.nextBoolean() ? "" : "x");
        Map<String, String> env = new HashMap<>();
        env.put(setting.environmentVariable(), value);
        tried++;
        try {
          NodeSettings.load(null, env);
        } catch (NodeConfigException e) {
          rejected++;
          assertThat(e.getMessage())
              .as("%s=%s", setting.environmentVariable(), value)
              .containsAnyOf(setting.environmentVariable(), setting.key());
        } catch (RuntimeException e) {
          throw new AssertionError(setting.environmentVariable() + "=" + value + " threw " + e, e);
        }
      }
    }
    System.out.printf(
        "node-settings fuzz: %d values over %d settings, %d rejected naming the setting%n",
        tried, Setting.values().length, rejected);
    assertThat(rejected).isPositive();
  }

  /**
   * Random {@code rule=policy} lists for {@code SLUICE_FAILURE_POLICIES}: an oracle built from the
   * parts says whether each must parse, and to what; a rejection must name the setting.
   */
  @Test
  void failurePolicies_randomLists_parseExactlyWhenEveryPartIsValid() {
    Random random = Seeds.random();
    List<String> names =
        List.of("login", "api.v2", "sms_out", "a-b", "bad name", "", "x".repeat(65));
    List<String> policies =
        List.of("fail-open", "FAIL-CLOSED", "fail-closed", "open", "fail_open", "", "closed!");
    int accepted = 0;
    for (int i = 0; i < 300; i++) {
      StringBuilder text = new StringBuilder();
      Map<String, FailurePolicy> expected = new HashMap<>();
      boolean valid = true;
      int pairs = random.nextInt(4);
      for (int p = 0; p < pairs; p++) {
        String name = pick(random, names);
        String policy = pick(random, policies);
        boolean noEquals = random.nextInt(10) == 0;
        String pair = name + (noEquals ? "" : "=") + policy;
        text.append(pair).append(',');
        if (pair.isEmpty()) {
          continue; // an empty item between commas is skipped, like in SLUICE_MEMBERS
        }
        boolean nameOk = name.matches("[A-Za-z0-9_.-]{1,64}");
        FailurePolicy parsed =
            switch (policy.toLowerCase(java.util.Locale.ROOT)) {
              case "fail-open" -> FailurePolicy.FAIL_OPEN;
              case "fail-closed" -> FailurePolicy.FAIL_CLOSED;
              default -> null;
            };
        if (noEquals || !nameOk || parsed == null || expected.containsKey(name)) {
          valid = false;
        } else {
          expected.put(name, parsed);
        }
      }
      Map<String, String> env = Map.of("SLUICE_FAILURE_POLICIES", text.toString());
      if (valid) {
        assertThat(NodeSettings.load(null, env).failurePolicies())
            .as(text.toString())
            .isEqualTo(expected);
        accepted++;
      } else {
        assertThatThrownBy(() -> NodeSettings.load(null, env))
            .as(text.toString())
            .isInstanceOf(NodeConfigException.class)
            .hasMessageStartingWith(
                "environment variable SLUICE_FAILURE_POLICIES: failurePolicies: ");
      }
    }
    System.out.printf("failurePolicies fuzz: 300 lists, %d accepted%n", accepted);
    assertThat(accepted).isPositive().isLessThan(300);
  }

  private static List<Rule> sorted(java.util.Collection<Rule> rules) {
    List<Rule> list = new ArrayList<>(rules);
    list.sort(Comparator.comparing(Rule::name));
    return list;
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
