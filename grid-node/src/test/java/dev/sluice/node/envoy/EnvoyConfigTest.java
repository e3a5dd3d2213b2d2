package dev.sluice.node.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** How a request descriptor finds its limit: the peer's matching rules, one by one. */
class EnvoyConfigTest {
  private static final EnvoyConfig CONFIG =
      EnvoyConfigLoader.parse(
          "edge.yaml",
          """
          domain: edge
          descriptors:
            - key: tenant
              value: acme
              descriptors:
                - key: route                  # any route of acme: the key's default
                  rate_limit: {unit: second, requests_per_unit: 5}
                - key: route
                  value: checkout             # one route of acme: overrides the default
                  rate_limit: {unit: second, requests_per_unit: 10}
            - key: remote_address             # every address: the key's default
              rate_limit: {unit: minute, requests_per_unit: 20}
            - key: remote_address
              value: 10.0.0.1                 # one address: its own limit
              rate_limit: {unit: minute, requests_per_unit: 30}
            - key: remote_address
              value: 10.0.0.2                 # allow-listed: a value without a limit
            - key: path
              value: /api/*                   # trailing wildcard
              rate_limit: {unit: minute, requests_per_unit: 40}
            - key: path
              value: /files/*/raw             # middle wildcard
              rate_limit: {unit: minute, requests_per_unit: 41}
            - key: path
              value: /a*/b*/c                 # several
              rate_limit: {unit: minute, requests_per_unit: 42}
            - key: path
              value: /api/v1
              rate_limit: {unit: minute, requests_per_unit: 43}
            - key: plan
              value: gold
              rate_limit: {unit: hour, requests_per_unit: 100}
              descriptors:
                - key: user
                  rate_limit: {unit: hour, requests_per_unit: 7}
            - key: user
              detailed_metric: true
              rate_limit: {unit: day, requests_per_unit: 1000}
            - key: bucket
              value: logs-*
              share_threshold: true
              rate_limit: {unit: second, requests_per_unit: 3}
            - key: bucket
              value: img-*
              value_to_metric: true
              rate_limit: {unit: second, requests_per_unit: 4}
            - key: "200"
              value: 404
              rate_limit: {unit: second, requests_per_unit: 2}
          """);

  @Test
  void match_keyWithoutValueInConfig_isTheDefaultForEveryValue() {
    assertThat(limit("remote_address", "192.0.2.7")).isEqualTo(20);
    assertThat(path("remote_address", "192.0.2.7")).isEqualTo("remote_address");
  }

  @Test
  void match_exactValue_overridesTheKeysDefault() {
    assertThat(limit("remote_address", "10.0.0.1")).isEqualTo(30);
    assertThat(path("remote_address", "10.0.0.1")).isEqualTo("remote_address_10.0.0.1");
  }

  @Test
  void match_valueWithoutALimit_allowListsIt() {
    assertThat(match("remote_address", "10.0.0.2")).isNull();
  }

  @Test
  void match_nestedLevels_theLimitIsTheLastEntrysLevel() {
    assertThat(limit("tenant", "acme", "route", "search")).isEqualTo(5);
    assertThat(limit("tenant", "acme", "route", "checkout")).isEqualTo(10);
    assertThat(path("tenant", "acme", "route", "checkout")).isEqualTo("tenant_acme.route_checkout");
    assertThat(match("tenant", "acme")).as("the level of the last entry has no limit").isNull();
    assertThat(match("tenant", "other", "route", "x")).as("no level for tenant other").isNull();
  }

  @Test
  void match_moreEntriesThanTheConfigHasLevels_getsNoLimit() {
    assertThat(match("remote_address", "10.0.0.1", "extra", "x")).isNull();
    assertThat(match("plan", "gold", "user", "u1", "extra", "x")).isNull();
  }

  @Test
  void match_aLevelWithALimitAndChildren_limitsOnlyDescriptorsEndingThere() {
    assertThat(limit("plan", "gold")).isEqualTo(100);
    assertThat(limit("plan", "gold", "user", "u1")).isEqualTo(7);
    assertThat(match("plan", "gold", "team", "t1")).isNull();
  }

  @Test
  void match_wildcards_trailingMiddleAndSeveral() {
    assertThat(limit("path", "/api/v2/users")).isEqualTo(40);
    assertThat(limit("path", "/api/")).as("* matches nothing too").isEqualTo(40);
    assertThat(limit("path", "/files/abc/raw")).isEqualTo(41);
    assertThat(match("path", "/files/abc/cooked")).isNull();
    assertThat(limit("path", "/a1/b2/c")).isEqualTo(42);
    assertThat(limit("path", "/a/b/c")).isEqualTo(42);
    assertThat(match("path", "/a1/c")).as("a part is missing").isNull();
    assertThat(match("path", "/other")).isNull();
    assertThat(path("path", "/api/v2/users")).isEqualTo("path_/api/*");
  }

  @Test
  void match_exactValue_winsOverAWildcardThatAlsoMatches() {
    assertThat(limit("path", "/api/v1")).isEqualTo(43);
  }

  @Test
  void match_detailedMetric_reportsTheRequestsValue() {
    Match match = match("user", "alice");
    assertThat(match.configPath()).isEqualTo("user");
    assertThat(match.metricPath()).isEqualTo("user_alice");
  }

  @Test
  void match_valueToMetric_reportsTheRequestsValueInsteadOfThePattern() {
    Match match = match("bucket", "img-42");
    assertThat(match.configPath()).isEqualTo("bucket_img-*");
    assertThat(match.metricPath()).isEqualTo("bucket_img-42");
  }

  @Test
  void counterPath_isPerRequestValue_unlessTheWildcardSharesOneCounter() {
    assertThat(match("remote_address", "192.0.2.7").counterPath())
        .isEqualTo("remote_address=192.0.2.7");
    assertThat(match("bucket", "logs-a").counterPath()).isEqualTo("bucket=logs-*");
    assertThat(match("bucket", "logs-b").counterPath()).isEqualTo("bucket=logs-*");
    assertThat(match("bucket", "img-1").counterPath()).isEqualTo("bucket=img-1");
  }

  @Test
  void counterPath_separatorsInKeysAndValues_areEscaped() {
    assertThat(match("remote_address", "a=b|c%").counterPath())
        .isEqualTo("remote_address=a%3Db%7Cc%25");
  }

  @Test
  void match_numericKeysAndValues_areTheTextWritten() {
    assertThat(limit("200", "404")).isEqualTo(2);
  }

  @Test
  void match_unknownDomainOrNoEntries_isNull() {
    assertThat(CONFIG.hasDomain("other")).isFalse();
    assertThat(CONFIG.match("other", entries("remote_address", "x"))).isNull();
    assertThat(CONFIG.match("edge", List.of())).isNull();
  }

  private static @Nullable Match match(String... keyValues) {
    return CONFIG.match("edge", entries(keyValues));
  }

  private static long limit(String... keyValues) {
    Match match = match(keyValues);
    assertThat(match).as("a limit for %s", List.of(keyValues)).isNotNull();
    return match.limit().requestsPerUnit();
  }

  private static String path(String... keyValues) {
    return match(keyValues).configPath();
  }

  static List<RateLimitDescriptor.Entry> entries(String... keyValues) {
    List<RateLimitDescriptor.Entry> entries = new ArrayList<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      entries.add(
          RateLimitDescriptor.Entry.newBuilder()
              .setKey(keyValues[i])
              .setValue(keyValues[i + 1])
              .build());
    }
    return entries;
  }
}
