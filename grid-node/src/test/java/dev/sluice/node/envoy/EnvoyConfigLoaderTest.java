package dev.sluice.node.envoy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.config.ConfigFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What an envoyproxy/ratelimit config file may say: every key the peer reads is accepted, what the
 * peer refuses is refused, and every refusal names the file, line and field.
 */
class EnvoyConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void load_everyKeyThePeerReads_isAccepted() throws Exception {
    Path file =
        write(
            "all.yaml",
            """
            domain: all-keys
            descriptors:
              - key: a
                value: b
                rate_limit:
                  unit: MINUTE
                  requests_per_unit: 10
                  name: a-limit
                  replaces:
                    - name: other
                shadow_mode: true
                quota_mode: true
                detailed_metric: true
                value_to_metric: true
                metadata:
                  owner: {team: edge, tags: [x, y]}
                descriptors:
                  - key: c
                    rate_limit:
                      unlimited: true
              - key: d
                value: e*
                share_threshold: true
                rate_limit: {unit: second, requests_per_unit: 0}
            """);

    EnvoyConfig config = EnvoyConfigLoader.load(file);

    Match a = config.match("all-keys", EnvoyConfigTest.entries("a", "b"));
    assertThat(a.limit())
        .satisfies(
            limit -> {
              assertThat(limit.requestsPerUnit()).isEqualTo(10);
              assertThat(limit.unit()).isEqualTo(LimitUnit.MINUTE);
              assertThat(limit.name()).isEqualTo("a-limit");
              assertThat(limit.replaces()).containsExactly("other");
              assertThat(limit.shadow()).isTrue();
              assertThat(limit.quota()).isTrue();
              assertThat(limit.detailedMetric()).isTrue();
              assertThat(limit.policy().algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
              assertThat(limit.policy().window()).isEqualTo(Duration.ofMinutes(1));
              assertThat(limit.policy().shadow()).isTrue();
            });
    assertThat(config.match("all-keys", EnvoyConfigTest.entries("a", "b", "c", "x")).limit())
        .satisfies(limit -> assertThat(limit.unlimited()).isTrue());
    assertThat(config.match("all-keys", EnvoyConfigTest.entries("d", "e1")).limit())
        .satisfies(
            limit -> {
              assertThat(limit.requestsPerUnit()).isZero();
              assertThat(limit.policy()).as("0 blocks without counting").isNull();
            });
  }

  @Test
  void load_sluiceKeys_chooseTheAlgorithmWindowAndBurst() throws Exception {
    Path file =
        write(
            "sluice.yaml",
            """
            domain: tuned
            sluice:
              algorithm: fixed_window
            descriptors:
              - key: plain
                rate_limit: {unit: minute, requests_per_unit: 60}
              - key: burst
                rate_limit:
                  unit: second
                  requests_per_unit: 100
                  sluice: {algorithm: gcra, burst: 20}
              - key: window
                rate_limit:
                  unit: minute
                  requests_per_unit: 5
                  sluice: {window: 10s, algorithm: sliding_window}
            """);

    EnvoyConfig config = EnvoyConfigLoader.load(file);

    assertThat(policyOf(config, "plain").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    assertThat(policyOf(config, "burst").algorithm()).isEqualTo(Algorithm.GCRA);
    assertThat(policyOf(config, "burst").burst()).isEqualTo(20);
    assertThat(policyOf(config, "window").window()).isEqualTo(Duration.ofSeconds(10));
    assertThat(policyOf(config, "window").algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
  }

  private static dev.sluice.core.Policy policyOf(EnvoyConfig config, String key) {
    return config.match("tuned", EnvoyConfigTest.entries(key, "x")).limit().policy();
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            "an empty domain",
            "descriptors:\n  - key: a\n",
            "bad.yaml:1:1: domain: is required: the domain Envoy's rate limit filter names"),
        Arguments.of(
            "a descriptor without a key",
            "domain: d\ndescriptors:\n  - value: v\n",
            "bad.yaml:3:5: descriptors[0].key: is required"),
        Arguments.of(
            "two descriptors with one key and value",
            "domain: d\ndescriptors:\n  - key: a\n    value: v\n  - key: a\n    value: v\n",
            "bad.yaml:5:5: descriptors[1]: duplicate descriptor: key 'a' with value 'v' is already"
                + " descriptors[0]"),
        Arguments.of(
            "a bad unit",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: fortnight, requests_per_unit: 1}\n",
            "bad.yaml:4:24: descriptors[0].rate_limit.unit: invalid rate limit unit 'fortnight';"
                + " the units are second, minute, hour, day, week, month, year"),
        Arguments.of(
            "a limit without a unit",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {requests_per_unit: 1}\n",
            "bad.yaml:4:17: descriptors[0].rate_limit.unit: is required unless unlimited: true"),
        Arguments.of(
            "a unit on an unlimited limit",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unlimited: true, unit: day}\n",
            "bad.yaml:4:41: descriptors[0].rate_limit.unit: should not be given with unlimited:"
                + " true"),
        Arguments.of(
            "a limit replacing itself",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: day\n"
                + "      requests_per_unit: 1\n      name: self\n      replaces:\n"
                + "        - name: self\n",
            "bad.yaml:9:17: descriptors[0].rate_limit.replaces[0].name: replaces should not"
                + " contain the name of its own limit ('self'"),
        Arguments.of(
            "an empty replaces entry",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: day\n"
                + "      requests_per_unit: 1\n      replaces:\n        - name:\n",
            "bad.yaml:8:16: descriptors[0].rate_limit.replaces[0].name: should not be empty"),
        Arguments.of(
            "a misspelt key",
            "domain: d\ndescriptors:\n  - key: a\n    ratelimit: {unit: day}\n",
            "bad.yaml:4:5: descriptors[0].ratelimit: unknown field; the fields here are:"
                + " descriptors, detailed_metric, key, metadata, quota_mode, rate_limit,"
                + " shadow_mode, share_threshold, value, value_to_metric; did you mean"
                + " 'rate_limit'?"),
        Arguments.of(
            "a misspelt limit key",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: day, requestsperunit: 5}\n",
            "bad.yaml:4:29: descriptors[0].rate_limit.requestsperunit: unknown field;"),
        Arguments.of(
            "a list of things that are not descriptors",
            "domain: d\ndescriptors:\n  - a\n  - b\n",
            "bad.yaml:3:5: descriptors[0]: must be a mapping (key: value), found the text 'a'"),
        Arguments.of(
            "a quoted number",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: day, requests_per_unit: \"5\"}\n",
            "bad.yaml:4:48: descriptors[0].rate_limit.requests_per_unit: must be a whole number,"
                + " found the text '5' (write it without quotes)"),
        Arguments.of(
            "more than the peer's 32 bits",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: day, requests_per_unit: 4294967296}\n",
            "bad.yaml:4:48: descriptors[0].rate_limit.requests_per_unit: must be from 0 (block"
                + " every request) to 4294967295, was 4294967296"),
        Arguments.of(
            "more than Sluice counts",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: day, requests_per_unit: 2000000000}\n",
            "bad.yaml:4:48: descriptors[0].rate_limit.requests_per_unit: must be between 1 and"
                + " 1000000000, was 2000000000"),
        Arguments.of(
            "a yearly limit",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: year, requests_per_unit: 5}\n",
            "bad.yaml:4:24: descriptors[0].rate_limit.unit: year: Sluice counts over windows of at"
                + " most 30 days"),
        Arguments.of(
            "share_threshold without a wildcard",
            "domain: d\ndescriptors:\n  - key: a\n    value: v\n    share_threshold: true\n",
            "bad.yaml:5:22: descriptors[0].share_threshold: applies to wildcard values only"),
        Arguments.of(
            "an unknown Sluice algorithm",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: day\n"
                + "      requests_per_unit: 5\n      sluice: {algorithm: cuckoo}\n",
            "bad.yaml:7:27: descriptors[0].rate_limit.sluice.algorithm: unknown algorithm"
                + " 'cuckoo'"),
        Arguments.of(
            "leaky_bucket, which Envoy cannot wait for",
            "domain: d\nsluice: {algorithm: leaky_bucket}\ndescriptors: []\n",
            "bad.yaml:2:21: sluice.algorithm: leaky_bucket shapes traffic by telling callers to"
                + " wait, and Envoy cannot wait"),
        Arguments.of(
            "a burst on a window algorithm",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: day\n"
                + "      requests_per_unit: 5\n      sluice: {burst: 3}\n",
            "bad.yaml:7:23: descriptors[0].rate_limit.sluice.burst: applies to token_bucket, gcra"
                + " and leaky_bucket"),
        Arguments.of(
            "a window without a unit",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: day\n"
                + "      requests_per_unit: 5\n      sluice: {window: 10}\n",
            "bad.yaml:7:24: descriptors[0].rate_limit.sluice.window: '10' is not a duration; write a"
                + " whole number with ms, s, m, h or d"),
        Arguments.of(
            "a peer key where the peer does not read it",
            "domain: d\nunit: second\ndescriptors: []\n",
            "bad.yaml:2:1: unit: unknown field; the fields here are: descriptors, domain, sluice"),
        Arguments.of(
            "a key given twice",
            "domain: d\ndomain: e\n",
            "bad.yaml:2:1: domain: appears twice in this mapping (first on line 1)"),
        Arguments.of("text that is not YAML", "'''\n", "bad.yaml:2:1: not valid YAML"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void load_refused_namesFileLineAndField(String what, String yaml, String message)
      throws Exception {
    Path file = write("bad.yaml", yaml);

    assertThatThrownBy(() -> EnvoyConfigLoader.load(file))
        .isInstanceOf(ConfigFileException.class)
        .hasMessageStartingWith(message.replace("bad.yaml", file.toString()));
  }

  @Test
  void load_directory_readsEveryYamlFileButDotFiles() throws Exception {
    write(
        "edge.yaml",
        "domain: edge\ndescriptors: [{key: a, rate_limit: {unit: second, requests_per_unit: 1}}]\n");
    write("internal.yml", "domain: internal\n");
    write("README.txt", "not a config");
    write(".edge.yaml.swp", "not: [valid");
    Files.createDirectories(dir.resolve("..data"));
    write("..data/edge.yaml", "domain: shadowed\n");

    EnvoyConfig config = EnvoyConfigLoader.load(dir);

    assertThat(config.domains()).containsExactlyInAnyOrder("edge", "internal");
    assertThat(config.files())
        .containsExactly(dir.resolve("edge.yaml"), dir.resolve("internal.yml"));
  }

  @Test
  void load_twoFilesWithOneDomain_namesBoth() throws Exception {
    Path first = write("a.yaml", "domain: edge\n");
    Path second = write("b.yaml", "# the same domain again\ndomain: edge\n");

    assertThatThrownBy(() -> EnvoyConfigLoader.load(dir))
        .isInstanceOf(ConfigFileException.class)
        .hasMessage(
            second
                + ":2:9: domain: domain 'edge' is also the domain of "
                + first
                + "; each domain is in one file (the peer refuses this too)");
  }

  @Test
  void load_missingPathOrEmptyDirectory() throws Exception {
    assertThatThrownBy(() -> EnvoyConfigLoader.load(dir.resolve("nope")))
        .hasMessage(dir.resolve("nope") + ": no such file or directory");
    assertThat(EnvoyConfigLoader.load(dir).domains()).isEmpty();
  }

  private Path write(String name, String content) throws Exception {
    return Files.writeString(dir.resolve(name), content);
  }
}
