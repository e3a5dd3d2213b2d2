package dev.sluice.node.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import dev.sluice.core.local.LocalRateLimiter;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The answer's options and fine points on a one-JVM limiter with a manual clock (the gRPC and node
 * sides are in {@code EnvoyRlsTest}): global shadow mode, header families, counter keys, metrics.
 */
class ShouldRateLimitTest {
  private static final EnvoyConfig CONFIG =
      EnvoyConfigLoader.parse(
          "edge.yaml",
          """
          domain: edge
          descriptors:
            - key: ip
              rate_limit: {unit: second, requests_per_unit: 10}
            - key: slow
              rate_limit:
                unit: minute
                requests_per_unit: 2
                sluice: {algorithm: fixed_window}
            - key: invite
              rate_limit:
                unit: hour
                requests_per_unit: 1
                name: invites
                sluice: {on_denied: shadow_ban}
          """);

  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private ShouldRateLimit decider(boolean globalShadow, Set<Family> headers) {
    return new ShouldRateLimit(
        () -> CONFIG,
        new SluiceCounting(LocalRateLimiter.builder().timeSource(clock).build(), () -> CONFIG),
        new EnvoyMetrics(registry),
        headers,
        globalShadow,
        clock::nowNanos);
  }

  private static RateLimitRequest request(String key, String value) {
    return RateLimitRequest.newBuilder()
        .setDomain("edge")
        .addDescriptors(
            RateLimitDescriptor.newBuilder()
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value)))
        .build();
  }

  private static RateLimitResponse decide(ShouldRateLimit decider, RateLimitRequest request) {
    return decider.decide(request).toCompletableFuture().join();
  }

  private static Map<String, String> headers(RateLimitResponse response) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (HeaderValue header : response.getResponseHeadersToAddList()) {
      headers.put(header.getKey(), header.getValue());
    }
    return headers;
  }

  @Test
  void globalShadowMode_overTheLimit_descriptorSaysSoButTheAnswerIsOk() {
    ShouldRateLimit decider = decider(true, EnumSet.allOf(Family.class));
    decide(decider, request("slow", "a"));
    decide(decider, request("slow", "a"));

    RateLimitResponse third = decide(decider, request("slow", "a"));

    assertThat(third.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.getOverallCode()).isEqualTo(Code.OK);
    assertThat(headers(third)).doesNotContainKey("Retry-After");
    assertThat(registry.get("ratelimit.service.global_shadow_mode").counter().count()).isEqualTo(1);
  }

  @Test
  void headers_everyFamily_reportTheLimitThatBinds() {
    ShouldRateLimit decider = decider(false, EnumSet.allOf(Family.class));
    decide(decider, request("slow", "b"));
    decide(decider, request("slow", "b"));
    clock.advance(Duration.ofSeconds(15)); // 12:00:15, 45 s before the fixed window ends

    RateLimitResponse over = decide(decider, request("slow", "b"));

    assertThat(headers(over))
        .containsExactly(
            Map.entry("RateLimit-Policy", "\"edge.slow\";q=2;w=60"),
            Map.entry("RateLimit", "\"edge.slow\";r=0;t=45"),
            Map.entry("X-RateLimit-Limit", "2"),
            Map.entry("X-RateLimit-Remaining", "0"),
            Map.entry("X-RateLimit-Reset", "45"),
            Map.entry("Retry-After", "45"));
    assertThat(over.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(45);
  }

  @Test
  void headers_none_addsNothing() {
    ShouldRateLimit decider = decider(false, Set.of());
    decide(decider, request("slow", "c"));
    decide(decider, request("slow", "c"));

    assertThat(decide(decider, request("slow", "c")).getResponseHeadersToAddList()).isEmpty();
  }

  @Test
  void headers_severalDescriptors_reportTheOneWithTheFewestRemaining() {
    ShouldRateLimit decider = decider(false, EnumSet.of(Family.RATELIMIT));
    RateLimitRequest both =
        RateLimitRequest.newBuilder(request("ip", "d"))
            .addDescriptors(request("slow", "d").getDescriptors(0))
            .build();

    RateLimitResponse response = decide(decider, both);

    assertThat(headers(response)).containsEntry("RateLimit-Policy", "\"edge.slow\";q=2;w=60");
  }

  @Test
  void shadowBan_denied_answersOkWithARequestHeader_andNoCountAnywhere() {
    ShouldRateLimit decider = decider(false, EnumSet.allOf(Family.class));
    RateLimitResponse admitted = decide(decider, request("invite", "spammer"));

    RateLimitResponse banned = decide(decider, request("invite", "spammer"));

    assertThat(banned.getOverallCode()).isEqualTo(Code.OK);
    assertThat(banned.getRequestHeadersToAddList())
        .containsExactly(
            HeaderValue.newBuilder().setKey("x-sluice-shadow-banned").setValue("invites").build());
    assertThat(admitted.getRequestHeadersToAddList()).isEmpty();
    // The client's answer cannot tell the two apart: same statuses, no rate-limit headers.
    assertThat(banned.getStatusesList()).isEqualTo(admitted.getStatusesList());
    assertThat(banned.getStatuses(0).hasCurrentLimit()).isFalse();
    assertThat(banned.getResponseHeadersToAddList()).isEmpty();
    assertThat(admitted.getResponseHeadersToAddList()).isEmpty();
    // Beside a limit that reports, that one's headers are the only ones; the ban stays hidden.
    RateLimitRequest both =
        RateLimitRequest.newBuilder(request("invite", "spammer"))
            .addDescriptors(request("slow", "spammer").getDescriptors(0))
            .build();
    RateLimitResponse mixed = decide(decider, both);
    assertThat(mixed.getOverallCode()).isEqualTo(Code.OK);
    assertThat(headers(mixed)).containsEntry("RateLimit-Policy", "\"edge.slow\";q=2;w=60");
    assertThat(mixed.getRequestHeadersToAddList()).hasSize(1);
  }

  @Test
  void shadowBan_onAShadowModeDescriptor_isRefusedNamingTheField() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                EnvoyConfigLoader.parse(
                    "edge.yaml",
                    """
                    domain: edge
                    descriptors:
                      - key: invite
                        shadow_mode: true
                        rate_limit:
                          unit: hour
                          requests_per_unit: 1
                          sluice: {on_denied: shadow_ban}
                    """))
        .hasMessageContaining("sluice.on_denied")
        .hasMessageContaining("a shadow rule never denies");
  }

  @Test
  void counterKey_longValuesThatDifferOnlyAtTheEnd_countApart() {
    ShouldRateLimit decider = decider(false, Set.of());
    String common = "x".repeat(2_000);

    decide(decider, request("slow", common + "1"));
    decide(decider, request("slow", common + "1"));
    RateLimitResponse other = decide(decider, request("slow", common + "2"));

    assertThat(other.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(SluiceCounting.subject("edge", "slow=" + common))
        .hasSizeLessThanOrEqualTo(512)
        .startsWith("envoy/edge|slow=xxx")
        .contains("#");
  }

  @Test
  void counterKey_longNonAsciiValues_stayWithinTheGridsKeyBound() {
    ShouldRateLimit decider = decider(false, Set.of());
    String wide = "\u6f22\ud83d\ude00".repeat(300); // 3-byte and 4-byte UTF-8 characters

    RateLimitResponse response = decide(decider, request("slow", wide));

    assertThat(response.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    String subject = SluiceCounting.subject("edge", "slow=" + wide);
    assertThat(subject.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(512);
  }

  @Test
  void metrics_withinNearAndOverLimit_asThePeerCountsThem() {
    ShouldRateLimit decider = decider(false, Set.of());
    for (int i = 0; i < 11; i++) {
      decide(decider, request("ip", "e"));
    }

    assertThat(count("total_hits")).isEqualTo(11);
    assertThat(count("within_limit")).isEqualTo(10);
    assertThat(count("near_limit")).as("hits 9 and 10 of 10: above 80 %").isEqualTo(2);
    assertThat(count("over_limit")).isEqualTo(1);
    assertThat(count("shadow_mode")).isZero();
  }

  @Test
  void limitRule_namedAfterDomainAndPath_definedAgainWhenDeleted() {
    assertThat(SluiceCounting.ruleName("edge", "ip="))
        .matches("envoy\\.edge\\.[0-9a-f]{24}")
        .isEqualTo(SluiceCounting.ruleName("edge", "ip="))
        .isNotEqualTo(SluiceCounting.ruleName("edge", "slow="))
        .isNotEqualTo(SluiceCounting.ruleName("other", "ip="));
    assertThat(SluiceCounting.ruleName("a.b|c=d".repeat(20), "ip=")).hasSizeLessThanOrEqualTo(64);
    LocalRateLimiter limiter = LocalRateLimiter.builder().timeSource(clock).build();
    ShouldRateLimit decider =
        new ShouldRateLimit(
            () -> CONFIG,
            new SluiceCounting(limiter, () -> CONFIG),
            new EnvoyMetrics(registry),
            Set.of(),
            false,
            clock::nowNanos);
    decide(decider, request("slow", "f"));
    String rule =
        CONFIG.rules().keySet().stream()
            .filter(name -> name.startsWith("envoy.edge."))
            .findFirst()
            .orElseThrow();
    assertThat(limiter.rules().find(rule)).isPresent();
    for (String name : CONFIG.rules().keySet()) {
      limiter.rules().remove(name); // an operator deleting them through the API
    }

    RateLimitResponse again = decide(decider, request("slow", "f"));

    assertThat(again.getStatuses(0).getLimitRemaining())
        .as("defined again, the key's counter still there")
        .isZero();
    assertThat(limiter.rules().find(rule)).isPresent();
  }

  /**
   * envoyproxy/ratelimit's own {@code test/config/shadowmode_config.yaml}, as the peer ships it
   * (its tests read it; {@code key2} is 20 per minute in shadow mode), plus a blocked shadow limit.
   */
  private static final EnvoyConfig PEER_SHADOW_MODE =
      EnvoyConfigLoader.parse(
          "shadowmode_config.yaml",
          """
          # Basic configuration for testing.
          domain: test-domain
          descriptors:
            # Top level key/value with no default rate limit.
            - key: key1
              value: value1
              descriptors:
                # 2nd level key only with default rate limit.
                - key: subkey1
                  rate_limit:
                    unit: second
                    requests_per_unit: 5

                # 2nd level key/value with limit. Specific override at 2nd level.
                - key: subkey1
                  value: subvalue1
                  rate_limit:
                    unit: second
                    requests_per_unit: 10
                  shadow_mode: true

            # Top level key only with default rate limit.
            - key: key2
              rate_limit:
                unit: minute
                requests_per_unit: 20
              shadow_mode: true
            # Top level key/value with limit. Specific override at 1st level.
            - key: key2
              value: value2
              rate_limit:
                unit: minute
                requests_per_unit: 30
            - key: blocked
              rate_limit: {unit: minute, requests_per_unit: 0}
              shadow_mode: true
          """);

  private RateLimitResponse decideInPeerShadowConfig(long hits, String... entries) {
    ShouldRateLimit decider =
        new ShouldRateLimit(
            () -> PEER_SHADOW_MODE,
            new SluiceCounting(
                LocalRateLimiter.builder().timeSource(clock).build(), () -> PEER_SHADOW_MODE),
            new EnvoyMetrics(registry),
            Set.of(),
            false,
            clock::nowNanos);
    RateLimitDescriptor.Builder descriptor =
        RateLimitDescriptor.newBuilder().setHitsAddend(com.google.protobuf.UInt64Value.of(hits));
    for (int i = 0; i < entries.length; i += 2) {
      descriptor.addEntries(
          RateLimitDescriptor.Entry.newBuilder().setKey(entries[i]).setValue(entries[i + 1]));
    }
    return decide(
        decider,
        RateLimitRequest.newBuilder().setDomain("test-domain").addDescriptors(descriptor).build());
  }

  @Test
  void shadowMode_hitsAboveTheLimit_isOk_asThePeerAnswers() {
    RateLimitResponse key2 = decideInPeerShadowConfig(25, "key2", "something");
    assertThat(key2.getOverallCode()).isEqualTo(Code.OK);
    assertThat(key2.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(key2.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(20);
    assertThat(key2.getStatuses(0).getLimitRemaining())
        .as("25 hits asked more than 20 can hold: nothing counted")
        .isEqualTo(20);

    RateLimitResponse nested =
        decideInPeerShadowConfig(11, "key1", "value1", "subkey1", "subvalue1");
    assertThat(nested.getOverallCode()).isEqualTo(Code.OK);

    assertThat(decideInPeerShadowConfig(1, "blocked", "x").getOverallCode())
        .as("requests_per_unit 0 in shadow mode")
        .isEqualTo(Code.OK);

    RateLimitResponse enforced = decideInPeerShadowConfig(31, "key2", "value2");
    assertThat(enforced.getOverallCode())
        .as("the same hits on the enforced override are over")
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(
            registry
                .get("ratelimit.service.rate_limit.shadow_mode")
                .tag("domain", "test-domain")
                .tag("descriptor", "key2")
                .counter()
                .count())
        .isEqualTo(25);
  }

  private double count(String stat) {
    return registry
        .get("ratelimit.service.rate_limit." + stat)
        .tag("domain", "edge")
        .tag("descriptor", "ip")
        .counter()
        .count();
  }
}
