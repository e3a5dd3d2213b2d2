package dev.sluice.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.spec.PolicySpec;
import dev.sluice.core.spec.RuleSpec;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RulesFileTest {

  @Test
  void parse_everyAlgorithmAndField_yieldsThePoliciesWritten() {
    String yaml =
        """
        rules:
          - name: login
            algorithm: sliding_window
            limit: 5
            window: 1m
          - name: orders
            algorithm: fixed_window
            limit: 100
            window: PT1H
          - name: exact
            algorithm: sliding_log
            limit: 10
            window: 10s
            leases: off
          - name: uploads
            algorithm: sliding_buckets
            limit: 600
            window: 1h
            buckets: 12
            countDenied: true
            release: open
          - name: search
            algorithm: token_bucket
            limit: 50
            window: 1s
            burst: 200
          - name: api
            algorithm: gcra
            limit: 100
            window: 1s
            burst: 20
            shadow: true
          - name: emails.outbound
            algorithm: leaky_bucket
            limit: 10
            window: 250ms
          - name: defaults_only
            limit: 3
            window: 1d
          - name: db
            algorithm: concurrency
            limit: 8
            permitTtl: 30s
        """;

    List<Rule> rules = RulesFile.parse("rules.yaml", yaml);

    assertThat(rules)
        .containsExactly(
            new Rule("login", Policy.of(5, Duration.ofMinutes(1))),
            rule("orders", Algorithm.FIXED_WINDOW, 100, Duration.ofHours(1)).build(),
            new Rule(
                "exact",
                Policy.builder()
                    .algorithm(Algorithm.SLIDING_LOG)
                    .limit(10)
                    .window(Duration.ofSeconds(10))
                    .leases(Policy.Leases.OFF)
                    .build()),
            new Rule(
                "uploads",
                Policy.builder()
                    .algorithm(Algorithm.SLIDING_BUCKETS)
                    .limit(600)
                    .window(Duration.ofHours(1))
                    .buckets(12)
                    .countDenied(true)
                    .release(Policy.Release.OPEN)
                    .build()),
            new Rule(
                "search",
                Policy.builder()
                    .algorithm(Algorithm.TOKEN_BUCKET)
                    .limit(50)
                    .window(Duration.ofSeconds(1))
                    .burst(200)
                    .build()),
            new Rule(
                "api",
                Policy.builder()
                    .algorithm(Algorithm.GCRA)
                    .limit(100)
                    .window(Duration.ofSeconds(1))
                    .burst(20)
                    .shadow(true)
                    .build()),
            rule("emails.outbound", Algorithm.LEAKY_BUCKET, 10, Duration.ofMillis(250)).build(),
            new Rule("defaults_only", Policy.of(3, Duration.ofDays(1))),
            rule("db", Algorithm.CONCURRENCY, 8, Duration.ofSeconds(30)).build());
    assertThat(rules.get(6).policy().burst()).isEqualTo(10);
    assertThat(rules.stream().map(r -> r.policy().algorithm()).distinct())
        .containsExactlyInAnyOrder(Algorithm.values());
  }

  @Test
  void parse_onDenied_shadowBanOrRejectByDefault() {
    String yaml =
        """
        rules:
          - name: invites
            limit: 3
            window: 1h
            onDenied: shadow_ban
          - name: login
            limit: 5
            window: 1m
          - name: signup
            limit: 5
            window: 1m
            onDenied: reject
        """;
    assertThat(RulesFile.parse("rules.yaml", yaml))
        .extracting(rule -> rule.policy().onDenied())
        .containsExactly(
            Policy.OnDenied.SHADOW_BAN, Policy.OnDenied.REJECT, Policy.OnDenied.REJECT);
  }

  @Test
  void parse_emptyList_yieldsNoRules() {
    assertThat(RulesFile.parse("empty.yaml", "rules: []\n")).isEmpty();
    assertThat(RulesFile.parse("empty.yaml", "rules:\n")).isEmpty();
  }

  @Test
  void parse_limitsList_yieldsOnePolicyOfEveryLimit() {
    String yaml =
        """
        rules:
          - name: payments
            limits:
              - limit: 5
                window: 1s
              - {limit: 100, window: 1h, algorithm: gcra, burst: 10}
            shadow: true
        """;

    assertThat(RulesFile.parse("rules.yaml", yaml))
        .containsExactly(
            new Rule(
                "payments",
                Policy.builder()
                    .limit(5)
                    .window(Duration.ofSeconds(1))
                    .and(
                        Limit.builder()
                            .algorithm(Algorithm.GCRA)
                            .limit(100)
                            .window(Duration.ofHours(1))
                            .burst(10)
                            .build())
                    .shadow(true)
                    .build()));
  }

  @Test
  void parse_nameWrittenAsANumber_isTheTextWritten() {
    assertThat(RulesFile.parse("rules.yaml", "rules:\n  - {name: 404, limit: 1, window: 1s}\n"))
        .extracting(Rule::name)
        .containsExactly("404");
  }

  @Test
  void ruleFields_areTheNameThenThePolicySpecsFieldsThenTheRulesOwn() {
    List<String> policyFields =
        Arrays.stream(PolicySpec.class.getRecordComponents())
            .map(RecordComponent::getName)
            .toList();
    assertThat(Arrays.stream(RuleSpec.class.getRecordComponents()).map(RecordComponent::getName))
        .first()
        .isEqualTo("name");
    assertThat(
            Arrays.stream(RuleSpec.class.getRecordComponents())
                .skip(1)
                .limit(policyFields.size())
                .map(RecordComponent::getName)
                .toList())
        .containsExactlyInAnyOrderElementsOf(policyFields);
    assertThat(
            Arrays.stream(RuleSpec.class.getRecordComponents())
                .skip(1 + policyFields.size())
                .map(RecordComponent::getName))
        .containsExactly("scope", "onHomeUnreachable", "localShares");
  }

  @Test
  void globalRule_readsItsScope_andSharesOverOneAreRefusedByName(@TempDir Path dir)
      throws Exception {
    Path good = dir.resolve("global.yaml");
    Files.writeString(
        good,
        "rules:\n  - name: api\n    algorithm: fixed_window\n    limit: 1000\n    window: 1m\n"
            + "    scope: global\n    onHomeUnreachable: local_share\n"
            + "    localShares: {eu-west: 0.5, us-east: 0.4}\n");
    Rule rule = RulesFile.load(good).get(0);
    assertThat(rule.policy().global()).isTrue();
    assertThat(rule.policy().scope().localLimit("eu-west", 1000)).isEqualTo(500);
    assertThat(rule.policy().scope().localLimit("ap-south", 1000)).isZero();

    Path over = dir.resolve("over.yaml");
    Files.writeString(
        over,
        "rules:\n  - name: api\n    algorithm: fixed_window\n    limit: 1000\n    window: 1m\n"
            + "    scope: global\n    onHomeUnreachable: local_share\n"
            + "    localShares: {eu-west: 0.7, us-east: 0.5}\n");
    assertThatThrownBy(() -> RulesFile.load(over))
        .hasMessageContaining("localShares")
        .hasMessageContaining("must sum to at most 1");

    Path gcra = dir.resolve("gcra.yaml");
    Files.writeString(
        gcra,
        "rules:\n  - name: api\n    algorithm: gcra\n    limit: 10\n    window: 1s\n"
            + "    scope: global\n");
    assertThatThrownBy(() -> RulesFile.load(gcra))
        .hasMessageContaining("scope")
        .hasMessageContaining("fixed_window, sliding_window or sliding_buckets");
  }

  @Test
  void load_file_namesThePathInErrors(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.yaml");
    Files.writeString(good, "rules:\n  - name: a\n    limit: 1\n    window: 1s\n");
    assertThat(RulesFile.load(good)).extracting(Rule::name).containsExactly("a");

    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "rules:\n  - name: a\n    limit: 0\n    window: 1s\n");
    assertThatThrownBy(() -> RulesFile.load(bad))
        .isInstanceOf(ConfigFileException.class)
        .hasMessageStartingWith(bad + ":3:12: rules[0].limit: ")
        .hasMessageEndingWith(" (rule 'a')");
  }

  @Test
  void load_missingFile_isAConfigFileException(@TempDir Path dir) {
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(() -> RulesFile.load(missing))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage(missing + ": no such file");
  }

  /** A broken file, the line, the rule and the field its error must name, and a phrase. */
  static Stream<Arguments> brokenFiles() {
    return Stream.of(
        broken(
            "concurrency without permitTtl",
            """
            rules:
              - name: db
                algorithm: concurrency
                limit: 8
            """,
            2,
            "rules[0].permitTtl",
            "db",
            "is required for concurrency"),
        broken(
            "concurrency with a window",
            """
            rules:
              - name: db
                algorithm: concurrency
                limit: 8
                window: 1m
            """,
            5,
            "rules[0].window",
            "db",
            "concurrency has no window; give permitTtl"),
        broken(
            "permitTtl on a rate",
            """
            rules:
              - name: api
                limit: 8
                window: 1m
                permitTtl: 30s
            """,
            5,
            "rules[0].permitTtl",
            "api",
            "applies to concurrency only"),
        broken(
            "onDenied not one of the two",
            """
            rules:
              - name: invites
                limit: 3
                window: 1h
                onDenied: shadowban
            """,
            5,
            "rules[0].onDenied",
            "invites",
            "must be 'reject' or 'shadow_ban', was 'shadowban'"),
        broken(
            "onDenied shadow_ban on a shadow rule",
            """
            rules:
              - name: invites
                limit: 3
                window: 1h
                shadow: true
                onDenied: shadow_ban
            """,
            6,
            "rules[0].onDenied",
            "invites",
            "a shadow rule never denies"),
        broken(
            "unknown field",
            """
            rules:
              - name: login
                limit: 5
                window: 1m
                burts: 3
            """,
            5,
            "rules[0].burts",
            "login",
            "unknown field"),
        broken(
            "unknown field before the name, still named",
            """
            rules:
              - count_denied: true
                name: login
                limit: 5
                window: 1m
            """,
            2,
            "rules[0].count_denied",
            "login",
            "did you mean 'countDenied'"),
        broken(
            "missing name",
            """
            rules:
              - name: ok
                limit: 1
                window: 1s
              - limit: 5
                window: 1m
            """,
            5,
            "rules[1].name",
            null,
            "is required"),
        broken(
            "missing limit",
            """
            rules:
              - name: login
                window: 1m
            """,
            2,
            "rules[0].limit",
            "login",
            "is required"),
        broken(
            "missing window",
            """
            rules:
              - name: login
                limit: 5
            """,
            2,
            "rules[0].window",
            "login",
            "is required"),
        broken(
            "bad duration",
            """
            rules:
              - name: login
                limit: 5
                window: 5 minutes
            """,
            4,
            "rules[0].window",
            "login",
            "is not a duration"),
        broken(
            "window without unit",
            """
            rules:
              - name: login
                limit: 5
                window: 60
            """,
            4,
            "rules[0].window",
            "login",
            "has no unit"),
        broken(
            "limit as text",
            """
            rules:
              - name: login
                limit: "5"
                window: 1m
            """,
            3,
            "rules[0].limit",
            "login",
            "must be a whole number"),
        broken(
            "limit as fraction",
            """
            rules:
              - name: login
                limit: 2.5
                window: 1m
            """,
            3,
            "rules[0].limit",
            "login",
            "must be a whole number"),
        broken(
            "zero limit",
            """
            rules:
              - name: login
                limit: 0
                window: 1m
            """,
            3,
            "rules[0].limit",
            "login",
            "must be between 1 and"),
        broken(
            "window too long",
            """
            rules:
              - name: login
                limit: 5
                window: 31d
            """,
            4,
            "rules[0].window",
            "login",
            "must be between 1ms and 30d"),
        broken(
            "unknown algorithm",
            """
            rules:
              - name: login
                algorithm: sliding_windw
                limit: 5
                window: 1m
            """,
            3,
            "rules[0].algorithm",
            "login",
            "unknown algorithm 'sliding_windw'"),
        broken(
            "duplicate rule names",
            """
            rules:
              - name: login
                limit: 5
                window: 1m
              - name: login
                limit: 7
                window: 1m
            """,
            5,
            "rules[1].name",
            "login",
            "first defined on line 2"),
        broken(
            "invalid name",
            """
            rules:
              - name: "log in"
                limit: 5
                window: 1m
            """,
            2,
            "rules[0].name",
            "log in",
            "rule names are 1 to 64 characters"),
        broken(
            "shadow not a boolean",
            """
            rules:
              - name: login
                limit: 5
                window: 1m
                shadow: sometimes
            """,
            5,
            "rules[0].shadow",
            "login",
            "must be true or false"),
        broken(
            "negative burst",
            """
            rules:
              - name: api
                algorithm: gcra
                limit: 5
                window: 1m
                burst: -1
            """,
            6,
            "rules[0].burst",
            "api",
            "must be between 0 and"),
        broken(
            "burst on a fixed window",
            """
            rules:
              - name: signup
                algorithm: fixed_window
                limit: 3
                window: 1h
                burst: 10
            """,
            6,
            "rules[0].burst",
            "signup",
            "fixed_window has no burst"),
        broken(
            "too many buckets",
            """
            rules:
              - name: uploads
                algorithm: sliding_buckets
                limit: 5
                window: 1s
                buckets: 5000
            """,
            6,
            "rules[0].buckets",
            "uploads",
            "must be between 1 and 3600"),
        broken(
            "sliding_log above its cap",
            """
            rules:
              - name: exact
                algorithm: sliding_log
                limit: 20000
                window: 1m
            """,
            4,
            "rules[0].limit",
            "exact",
            "sliding_log keeps one timestamp"),
        broken(
            "duplicate field",
            """
            rules:
              - name: login
                limit: 5
                limit: 6
                window: 1m
            """,
            4,
            "rules[0].limit",
            null,
            "appears twice"),
        broken(
            "rule that is not a mapping",
            """
            rules:
              - login
            """,
            2,
            "rules[0]",
            null,
            "must be a mapping"),
        broken(
            "unknown top-level field",
            """
            rule:
              - name: login
            """,
            1,
            "rule",
            null,
            "unknown field; the fields here are: rules"),
        broken(
            "rules not a list",
            """
            rules:
              name: login
            """,
            2,
            "rules",
            null,
            "must be a list"),
        broken(
            "limit out of range",
            """
            rules:
              - name: login
                limit: 99999999999999999999
                window: 1m
            """,
            3,
            "rules[0].limit",
            "login",
            "out of range"),
        broken(
            "nested value",
            """
            rules:
              - name: login
                limit: {max: 5}
                window: 1m
            """,
            3,
            "rules[0].limit",
            "login",
            "found a mapping"),
        broken(
            "not YAML",
            """
            rules:
              - name: login
                limit: 5: 6
                window: 1m
            """,
            3,
            null,
            null,
            "not valid YAML"),
        broken(
            "a line indented one space short",
            "rules:\n  - name: a\n    limit: 5\n    window: 1m\n   burst: 3\n",
            5,
            null,
            null,
            "not valid YAML: while parsing a block collection (line 2, column 3), expected"
                + " <block end>, but found '<block mapping start>' (line 5, column 4)"),
        broken(
            "a tab for indentation",
            "rules:\n\t- name: a\n",
            2,
            null,
            null,
            "found character '\\t(TAB)' that cannot start any token. (Do not use \\t(TAB) for"
                + " indentation) (line 2, column 1)"),
        broken("empty file", "", 0, null, null, "is empty"),
        broken(
            "a bad window in a list of limits",
            """
            rules:
              - name: payments
                limits:
                  - limit: 5
                    window: 1s
                  - limit: 100
                    window: soon
            """,
            7,
            "rules[0].limits[1].window",
            "payments",
            "'soon' is not a duration"),
        broken(
            "a window without a unit in a list of limits",
            """
            rules:
              - name: payments
                limits: [{limit: 5, window: 60}]
            """,
            3,
            "rules[0].limits[0].window",
            "payments",
            "'60' has no unit"),
        broken(
            "an unknown field in a list of limits",
            """
            rules:
              - name: payments
                limits:
                  - {limit: 5, window: 1s, shadow: true}
            """,
            4,
            "rules[0].limits[0].shadow",
            "payments",
            "unknown field; the fields here are: algorithm, buckets, burst, limit, permitTtl, window"),
        broken(
            "one limit and a list of limits",
            """
            rules:
              - name: payments
                limit: 5
                window: 1s
                limits: [{limit: 100, window: 1h}]
            """,
            5,
            "rules[0].limits",
            "payments",
            "give either one limit"),
        broken(
            "an empty list of limits",
            """
            rules:
              - name: payments
                limits: []
            """,
            3,
            "rules[0].limits",
            "payments",
            "must hold 1 to 8 limits, was 0"),
        broken(
            "the same limit twice",
            """
            rules:
              - name: payments
                limits:
                  - {limit: 5, window: 1s}
                  - {limit: 5, window: 1s}
            """,
            5,
            "rules[0].limits[1]",
            "payments",
            "repeats limits[0]"));
  }

  private static Arguments broken(
      String description, String yaml, int line, String path, String rule, String phrase) {
    return Arguments.of(description, yaml, line, path, rule, phrase);
  }

  /**
   * Every error names the file, the line and the field by its path in the file ({@code
   * rules[1].limit}); one in a rule's field names the rule too, by the name the file gives it.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenFiles")
  void parse_brokenFile_namesFileLinePathAndRule(
      String description, String yaml, int line, String path, String rule, String phrase) {
    ConfigFileException error = catchConfigFileException(yaml);

    assertThat(error.source()).isEqualTo("rules.yaml");
    assertThat(error.line()).as("line of %s", error.getMessage()).isEqualTo(line);
    assertThat(error.path()).as("path of %s", error.getMessage()).isEqualTo(path);
    String where = line > 0 ? "rules.yaml:" + line + ":" : "rules.yaml: ";
    assertThat(error.getMessage()).startsWith(where).contains(phrase);
    if (path != null) {
      assertThat(error.getMessage()).contains(": " + path + ": ");
    }
    if (rule != null) {
      assertThat(error.getMessage()).contains("'" + rule + "'");
    }
  }

  @Test
  void parse_brokenValue_pointsAtTheColumnOfTheValue() {
    ConfigFileException error =
        catchConfigFileException("rules:\n  - name: login\n    limit: 5\n    window: soon\n");
    assertThat(error.line()).isEqualTo(4);
    assertThat(error.column()).isEqualTo(13);
    assertThat(error.getMessage())
        .startsWith("rules.yaml:4:13: rules[0].window: 'soon' is not a duration")
        .endsWith(" (rule 'login')");
  }

  private static ConfigFileException catchConfigFileException(String yaml) {
    try {
      List<Rule> rules = RulesFile.parse("rules.yaml", yaml);
      throw new AssertionError("expected an error, parsed " + rules);
    } catch (ConfigFileException e) {
      return e;
    }
  }

  private static RuleBuilder rule(String name, Algorithm algorithm, long limit, Duration window) {
    return new RuleBuilder(name, Policy.builder().algorithm(algorithm).limit(limit).window(window));
  }

  private record RuleBuilder(String name, Policy.Builder policy) {
    Rule build() {
      return new Rule(name, policy.build());
    }
  }
}
