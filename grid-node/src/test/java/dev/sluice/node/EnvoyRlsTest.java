package dev.sluice.node;

import static dev.sluice.node.RlsClient.descriptor;
import static dev.sluice.node.RlsClient.descriptorBuilder;
import static dev.sluice.node.RlsClient.header;
import static dev.sluice.node.RlsClient.hits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ManualTimeSource;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node in this JVM, on a manual clock, driven over gRPC by a client built from Envoy's own
 * stubs: the peer's semantics as Envoy sees them. Each test counts on keys of its own, so that they
 * share one node.
 */
class EnvoyRlsTest {
  static final String CONFIG =
      """
      domain: edge
      descriptors:
        - key: remote_address                 # 5 a minute per address
          rate_limit: {unit: minute, requests_per_unit: 5}
        - key: remote_address
          value: 10.0.0.9                     # one address gets 2
          rate_limit: {unit: minute, requests_per_unit: 2}
        - key: path
          value: /api/*
          rate_limit: {unit: second, requests_per_unit: 2}
        - key: tenant
          value: acme
          descriptors:
            - key: route
              rate_limit: {unit: hour, requests_per_unit: 4}
        - key: vip
          rate_limit:
            unlimited: true
            replaces: [{name: per-user}]
        - key: user
          rate_limit: {unit: minute, requests_per_unit: 3, name: per-user}
        - key: trial
          shadow_mode: true
          rate_limit: {unit: minute, requests_per_unit: 1}
        - key: banned
          rate_limit: {unit: minute, requests_per_unit: 0}
        - key: quota
          quota_mode: true
          rate_limit: {unit: minute, requests_per_unit: 1}
        - key: quota2
          quota_mode: true
          rate_limit: {unit: minute, requests_per_unit: 1}
      """;

  @TempDir static Path dir;
  static final ManualTimeSource CLOCK = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));
  static SluiceNode node;
  static RlsClient rls;

  @BeforeAll
  static void start() throws Exception {
    Path rules = Files.writeString(dir.resolve("rules.yaml"), "rules: []\n");
    Path envoy = Files.writeString(dir.resolve("edge.yaml"), CONFIG);
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules);
    env.put("SLUICE_RLS_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_ENVOY_CONFIG", envoy.toString());
    node = SluiceNode.start(NodeSettings.load(null, env), CLOCK);
    rls = new RlsClient(node.rlsPort());
  }

  @AfterAll
  static void stop() {
    if (rls != null) {
      rls.close();
    }
    if (node != null) {
      node.close();
    }
  }

  private static String unique() {
    return UUID.randomUUID().toString();
  }

  @Test
  void shouldRateLimit_fiveAllowedThenOverLimit_withStatusAndHeaders() {
    String address = "192.0.2." + unique();
    for (int i = 1; i <= 5; i++) {
      RateLimitResponse ok = rls.call("edge", descriptor("remote_address", address));
      assertThat(ok.getOverallCode()).isEqualTo(Code.OK);
      DescriptorStatus status = ok.getStatuses(0);
      assertThat(status.getCode()).isEqualTo(Code.OK);
      assertThat(status.getCurrentLimit().getRequestsPerUnit()).isEqualTo(5);
      assertThat(status.getCurrentLimit().getUnit())
          .isEqualTo(RateLimitResponse.RateLimit.Unit.MINUTE);
      assertThat(status.getLimitRemaining()).isEqualTo(5 - i);
      assertThat(status.getDurationUntilReset().getSeconds())
          .as("a sliding window is whole again once the current window no longer weighs in")
          .isBetween(1L, 120L);
      assertThat(header(ok, "RateLimit-Policy")).isEqualTo("\"edge.remote_address\";q=5;w=60");
      assertThat(header(ok, "RateLimit"))
          .startsWith("\"edge.remote_address\";r=" + (5 - i) + ";t=");
      assertThat(header(ok, "Retry-After")).isNull();
      assertThat(header(ok, "X-RateLimit-Limit")).as("off by default").isNull();
    }

    RateLimitResponse over = rls.call("edge", descriptor("remote_address", address));

    assertThat(over.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    DescriptorStatus status = over.getStatuses(0);
    assertThat(status.getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(status.getLimitRemaining()).isZero();
    long retryAfterSeconds = Long.parseLong(header(over, "Retry-After"));
    assertThat(retryAfterSeconds)
        .as("the next window, rounded up: waiting it out succeeds")
        .isBetween(1L, 61L);
    assertThat(status.getDurationUntilReset().getSeconds())
        .as("over: until a retry would succeed")
        .isLessThanOrEqualTo(retryAfterSeconds);
    assertThat(header(over, "RateLimit")).startsWith("\"edge.remote_address\";r=0;t=");
  }

  @Test
  void shouldRateLimit_afterTheWindowSlidesBy_allowsAgain() {
    String address = "198.51.100." + unique();
    for (int i = 0; i < 5; i++) {
      rls.call("edge", descriptor("remote_address", address));
    }
    assertThat(rls.call("edge", descriptor("remote_address", address)).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);

    CLOCK.advance(Duration.ofMinutes(2)); // two windows later the previous one weighs nothing

    RateLimitResponse again = rls.call("edge", descriptor("remote_address", address));
    assertThat(again.getOverallCode()).isEqualTo(Code.OK);
    assertThat(again.getStatuses(0).getLimitRemaining()).isEqualTo(4);
  }

  @Test
  void matching_defaultsOverridesWildcardsNestingAndNoMatch_endToEnd() {
    RateLimitResponse response =
        rls.call(
            "edge",
            descriptor("remote_address", "10.0.0.9"),
            descriptor("path", "/api/" + unique()),
            descriptor("tenant", "acme", "route", "/checkout"),
            descriptor("tenant", "acme"),
            descriptor("unknown", "x"),
            descriptor("remote_address", "10.0.0.9", "deeper", "x"));

    List<DescriptorStatus> statuses = response.getStatusesList();
    assertThat(statuses).hasSize(6);
    assertThat(statuses.get(0).getCurrentLimit().getRequestsPerUnit()).as("override").isEqualTo(2);
    assertThat(statuses.get(1).getCurrentLimit().getRequestsPerUnit()).as("wildcard").isEqualTo(2);
    assertThat(statuses.get(1).getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.SECOND);
    assertThat(statuses.get(2).getCurrentLimit().getRequestsPerUnit()).as("nested").isEqualTo(4);
    for (int i = 3; i < 6; i++) {
      assertThat(statuses.get(i).getCode()).isEqualTo(Code.OK);
      assertThat(statuses.get(i).hasCurrentLimit()).as("no limit for #%d", i).isFalse();
    }
  }

  @Test
  void shouldRateLimit_unknownDomain_answersOkForEveryDescriptorAndCountsNothing() {
    RateLimitResponse response =
        rls.call("nobody-configured-this", descriptor("remote_address", "x"), descriptor("a", "b"));

    assertThat(response.getOverallCode()).isEqualTo(Code.OK);
    assertThat(response.getStatusesList())
        .hasSize(2)
        .allSatisfy(
            status -> {
              assertThat(status.getCode()).isEqualTo(Code.OK);
              assertThat(status.hasCurrentLimit()).isFalse();
            });
    assertThat(response.getResponseHeadersToAddList()).isEmpty();
  }

  @Test
  void hitsAddend_onTheRequest_countsThatManyAndAnOverRequestCountsNothing() {
    String address = "203.0.113." + unique();
    RateLimitResponse three =
        rls.call(
            RlsClient.request("edge", descriptor("remote_address", address))
                .setHitsAddend(3)
                .build());
    RateLimitResponse threeMore =
        rls.call(
            RlsClient.request("edge", descriptor("remote_address", address))
                .setHitsAddend(3)
                .build());
    RateLimitResponse two =
        rls.call(
            RlsClient.request("edge", descriptor("remote_address", address))
                .setHitsAddend(2)
                .build());

    assertThat(three.getStatuses(0).getLimitRemaining()).isEqualTo(2);
    assertThat(threeMore.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(two.getOverallCode()).as("the denied 3 took nothing").isEqualTo(Code.OK);
    assertThat(two.getStatuses(0).getLimitRemaining()).isZero();
  }

  @Test
  void hitsAddend_perDescriptor_overridesTheRequestsAndZeroOnlyLooks() {
    String address = "203.0.113." + unique();
    RateLimitResponse response =
        rls.call(
            RlsClient.request(
                    "edge", hits(4, "remote_address", address), hits(0, "remote_address", address))
                .setHitsAddend(1)
                .build());
    RateLimitResponse tooMany = rls.call("edge", hits(6, "remote_address", "x" + unique()));

    assertThat(response.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(response.getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(response.getStatuses(1).getLimitRemaining()).as("0 hits: a look").isEqualTo(1);
    assertThat(tooMany.getOverallCode())
        .as("more hits than the limit can ever hold")
        .isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void shadowMode_overTheLimit_saysOkButCountsTheShadowHit() {
    String user = unique();
    RateLimitResponse first = rls.call("edge", descriptor("trial", user));
    RateLimitResponse second = rls.call("edge", descriptor("trial", user));

    assertThat(first.getOverallCode()).isEqualTo(Code.OK);
    assertThat(second.getOverallCode()).isEqualTo(Code.OK);
    assertThat(second.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(header(second, "Retry-After")).isNull();
    assertThat(TestNodes.get(node.restPort(), "/metrics").body())
        .containsPattern(
            "ratelimit_service_rate_limit_shadow_mode_total\\{descriptor=\"trial\",domain=\"edge\"} [1-9]");
  }

  @Test
  void replaces_anUnlimitedLimitSwitchesOffTheOneItNames() {
    String user = unique();
    RateLimitResponse both = rls.call("edge", descriptor("vip", "yes"), descriptor("user", user));
    RateLimitResponse alone = rls.call("edge", descriptor("user", user));

    DescriptorStatus vip = both.getStatuses(0);
    assertThat(vip.getCode()).isEqualTo(Code.OK);
    assertThat(Integer.toUnsignedLong(vip.getLimitRemaining())).isEqualTo(4_294_967_295L);
    assertThat(both.getStatuses(1).hasCurrentLimit()).as("replaced").isFalse();
    assertThat(alone.getStatuses(0).getLimitRemaining()).as("nothing was counted").isEqualTo(2);
    assertThat(alone.getStatuses(0).getCurrentLimit().getName()).isEqualTo("per-user");
  }

  @Test
  void requestsPerUnitZero_blocksEveryRequest() {
    RateLimitResponse response = rls.call("edge", descriptor("banned", unique()));

    assertThat(response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(response.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isZero();
    assertThat(header(response, "Retry-After")).isEqualTo("60");
  }

  @Test
  void quotaMode_overOnlyWhenEveryQuotaDescriptorIs() {
    String key = unique();
    rls.call("edge", descriptor("quota", key));

    RateLimitResponse oneOfOne = rls.call("edge", descriptor("quota", key));
    RateLimitResponse oneOfTwo =
        rls.call("edge", descriptor("quota", key), descriptor("quota2", unique()));

    assertThat(oneOfOne.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(oneOfOne.getOverallCode())
        .as("every quota descriptor is over")
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(oneOfTwo.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(oneOfTwo.getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(oneOfTwo.getOverallCode())
        .as("one quota descriptor still has room")
        .isEqualTo(Code.OK);
  }

  @Test
  void limitInTheRequest_overridesTheConfigAndCountsPerValue() {
    String address = unique();
    var limited =
        descriptorBuilder("remote_address", address)
            .setLimit(
                RateLimitOverride.newBuilder().setRequestsPerUnit(1).setUnit(RateLimitUnit.HOUR))
            .build();

    RateLimitResponse first = rls.call("edge", limited);
    RateLimitResponse second = rls.call("edge", limited);

    assertThat(first.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(1);
    assertThat(first.getStatuses(0).getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.HOUR);
    assertThat(second.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(
            rls.call("edge", descriptor("remote_address", address))
                .getStatuses(0)
                .getLimitRemaining())
        .as("the config's limit counts apart")
        .isEqualTo(4);
  }

  @Test
  void badRequest_isInvalidArgumentNamingTheField_andCountsNothing() {
    String address = unique();
    var badOverride =
        descriptorBuilder("remote_address", "y")
            .setLimit(RateLimitOverride.newBuilder().setRequestsPerUnit(1))
            .build();

    assertThatThrownBy(() -> rls.call("", descriptor("remote_address", address)))
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(
            e ->
                assertThat(Status.fromThrowable(e).getCode())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining("domain: must not be empty");
    assertThatThrownBy(() -> rls.call("edge"))
        .hasMessageContaining("descriptors: must not be empty");
    assertThatThrownBy(() -> rls.call("edge", descriptor("remote_address", address), badOverride))
        .satisfies(
            e ->
                assertThat(Status.fromThrowable(e).getCode())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining(
            "descriptors[1].limit.unit: must be SECOND, MINUTE, HOUR, DAY, MONTH or YEAR, was UNKNOWN");

    assertThat(
            rls.call("edge", descriptor("remote_address", address))
                .getStatuses(0)
                .getLimitRemaining())
        .as("the refused requests counted nothing")
        .isEqualTo(4);
  }

  @Test
  void postJson_sameRequestAsJson_200Then429_andBadBodies400() {
    String address = unique();
    String body =
        "{\"domain\": \"edge\", \"descriptors\": [{\"entries\": [{\"key\": \"remote_address\","
            + " \"value\": \"10.0.0.9\"}, {\"key\": \"ignored\", \"value\": \""
            + address
            + "\"}]},"
            + " {\"entries\": [{\"key\": \"remote_address\", \"value\": \""
            + address
            + "\"}]}],"
            + " \"hits_addend\": 3}";

    TestNodes.Answer first = TestNodes.post(node.restPort(), "/json", body);
    TestNodes.Answer second = TestNodes.post(node.restPort(), "/json", body);

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().get("overallCode").asText()).isEqualTo("OK");
    assertThat(first.json().get("statuses").get(1).get("limitRemaining").asLong()).isEqualTo(2);
    assertThat(first.json().get("statuses").get(1).get("currentLimit").get("unit").asText())
        .isEqualTo("MINUTE");
    assertThat(second.status()).isEqualTo(429);
    assertThat(second.json().get("overallCode").asText()).isEqualTo("OVER_LIMIT");

    TestNodes.Answer notJson = TestNodes.post(node.restPort(), "/json", "{\"domain\": ");
    TestNodes.Answer unknownField =
        TestNodes.post(node.restPort(), "/json", "{\"domian\": \"edge\"}");
    TestNodes.Answer noDomain = TestNodes.post(node.restPort(), "/json", "{\"descriptors\": []}");
    assertThat(notJson.status()).isEqualTo(400);
    assertThat(notJson.json().get("error").asText()).isEqualTo("malformed_json");
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(unknownField.json().get("message").asText()).contains("domian");
    assertThat(noDomain.status()).isEqualTo(400);
    assertThat(noDomain.json().get("message").asText()).isEqualTo("domain: must not be empty");
  }

  @Test
  void metrics_perDescriptorInThePeersVocabulary() {
    String address = "metrics-" + unique();
    for (int i = 0; i < 6; i++) {
      rls.call("edge", descriptor("remote_address", address));
    }

    String metrics = TestNodes.get(node.restPort(), "/metrics").body();

    for (String stat : List.of("total_hits", "within_limit", "near_limit", "over_limit")) {
      assertThat(metrics)
          .containsPattern(
              "ratelimit_service_rate_limit_"
                  + stat
                  + "_total\\{descriptor=\"remote_address\",domain=\"edge\"} [1-9]");
    }
    assertThat(metrics).contains("ratelimit_service_config_load_success_total 1.0");
    rls.call("not-configured-" + address, descriptor("a", "b"));
    assertThat(TestNodes.get(node.restPort(), "/metrics").body())
        .contains(
            "ratelimit_service_rate_limit_domain_not_found_total{domain=\"not-configured-"
                + address
                + "\"} 1.0");
  }
}
