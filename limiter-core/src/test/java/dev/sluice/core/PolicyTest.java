package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyTest {

  @Test
  void of_defaults_slidingWindowSixtyBucketsNoBurst() {
    Policy policy = Policy.of(10, Duration.ofMinutes(1));
    assertThat(policy.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
    assertThat(policy.buckets()).isEqualTo(Limit.DEFAULT_BUCKETS);
    assertThat(policy.burst()).isZero();
    assertThat(policy.shadow()).isFalse();
    assertThat(policy.countDenied()).isFalse();
    assertThat(policy.windowNanos()).isEqualTo(60_000_000_000L);
  }

  @Test
  void builder_defaultBurst_dependsOnTheAlgorithm() {
    assertThat(burstOf(Algorithm.TOKEN_BUCKET)).isEqualTo(10);
    assertThat(burstOf(Algorithm.LEAKY_BUCKET)).isEqualTo(10);
    assertThat(burstOf(Algorithm.GCRA)).isEqualTo(9); // limit = burst + 1 = 10 at once
    assertThat(burstOf(Algorithm.FIXED_WINDOW)).isZero();
  }

  private static long burstOf(Algorithm algorithm) {
    return Policy.builder()
        .algorithm(algorithm)
        .limit(10)
        .window(Duration.ofSeconds(1))
        .build()
        .burst();
  }

  @Test
  void limit_zeroNegativeOrAboveMax_rejectedNamingLimit() {
    for (long limit : new long[] {0, -1, Limit.MAX_LIMIT + 1}) {
      assertRejected(
          Policy.builder().limit(limit).window(Duration.ofSeconds(1)), "limit", "between 1 and");
    }
  }

  @Test
  void window_missingTooShortOrTooLong_rejectedNamingWindow() {
    assertRejected(Policy.builder().limit(1), "window", "between 1ms and 30d");
    assertRejected(
        Policy.builder().limit(1).window(Duration.ofNanos(999_999)), "window", "between 1ms");
    assertRejected(Policy.builder().limit(1).window(Duration.ofDays(31)), "window", "31d");
    assertThatThrownBy(() -> new Limit(Algorithm.FIXED_WINDOW, 1, null, 0, 60))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("window"));
  }

  @Test
  void limit_fasterThanOnePerNanosecond_rejectedNamingLimit() {
    assertRejected(
        Policy.builder().limit(2_000_000).window(Duration.ofMillis(1)),
        "limit",
        "faster than one permit per nanosecond");
    // one per nanosecond exactly is fine
    assertThat(Policy.of(1_000_000, Duration.ofMillis(1)).limit()).isEqualTo(1_000_000);
  }

  @Test
  void algorithm_missing_rejectedNamingAlgorithm() {
    assertThatThrownBy(() -> new Limit(null, 1, Duration.ofSeconds(1), 0, 60))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("algorithm"));
    assertThatThrownBy(() -> Algorithm.fromWireName("sliding-window"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("algorithm"))
        .hasMessageContaining("sliding_window, fixed_window");
  }

  @Test
  void burst_negativeOrAboveMax_rejectedNamingBurst() {
    assertRejected(
        Policy.builder().algorithm(Algorithm.GCRA).limit(1).window(Duration.ofSeconds(1)).burst(-1),
        "burst",
        "between 0 and");
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.GCRA)
            .limit(1)
            .window(Duration.ofSeconds(1))
            .burst(Limit.MAX_LIMIT + 1),
        "burst",
        "between 0 and");
  }

  @Test
  void burst_zeroForTokenBucket_rejectedButFineForGcraAndLeakyBucket() {
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(1)
            .window(Duration.ofSeconds(1))
            .burst(0),
        "burst",
        "at least 1");
    for (Algorithm algorithm : new Algorithm[] {Algorithm.GCRA, Algorithm.LEAKY_BUCKET}) {
      assertThat(
              Policy.builder()
                  .algorithm(algorithm)
                  .limit(1)
                  .window(Duration.ofSeconds(1))
                  .burst(0)
                  .build()
                  .burst())
          .isZero();
    }
  }

  @Test
  void burst_drainingLongerThanACentury_rejectedNamingBurst() {
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.TOKEN_BUCKET)
            .limit(1)
            .window(Duration.ofDays(1))
            .burst(40_000),
        "burst",
        "100 years");
  }

  @Test
  void burstOrBuckets_forAnAlgorithmWithoutThem_rejectedNamingTheField() {
    for (Algorithm algorithm :
        List.of(Algorithm.SLIDING_WINDOW, Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG)) {
      assertRejected(
          Policy.builder().algorithm(algorithm).limit(5).window(Duration.ofMinutes(1)).burst(20),
          "burst",
          algorithm.wireName() + " has no burst");
    }
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.SLIDING_BUCKETS)
            .limit(5)
            .window(Duration.ofMinutes(1))
            .burst(20),
        "burst",
        "sliding_buckets has no burst");
    for (Algorithm algorithm : Algorithm.values()) {
      if (algorithm != Algorithm.SLIDING_BUCKETS) {
        assertRejected(
            Policy.builder()
                .algorithm(algorithm)
                .limit(5)
                .window(Duration.ofMinutes(1))
                .buckets(12),
            "buckets",
            "applies to sliding_buckets only");
      }
    }
  }

  @Test
  void buckets_outOfRangeOrShorterThanAMillisecond_rejectedNamingBuckets() {
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.SLIDING_BUCKETS)
            .limit(1)
            .window(Duration.ofSeconds(1))
            .buckets(0),
        "buckets",
        "between 1 and");
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.SLIDING_BUCKETS)
            .limit(1)
            .window(Duration.ofDays(1))
            .buckets(Limit.MAX_BUCKETS + 1),
        "buckets",
        "between 1 and");
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.SLIDING_BUCKETS)
            .limit(1)
            .window(Duration.ofMillis(59))
            .buckets(60),
        "buckets",
        "shorter than 1ms");
  }

  @Test
  void slidingLog_limitAboveItsCap_rejectedNamingLimitAndTheAlternatives() {
    assertRejected(
        Policy.builder()
            .algorithm(Algorithm.SLIDING_LOG)
            .limit(Limit.SLIDING_LOG_MAX_LIMIT + 1)
            .window(Duration.ofMinutes(1)),
        "limit",
        "use sliding_window or sliding_buckets");
  }

  @Test
  void withLimit_revalidates() {
    Policy policy = Policy.of(5, Duration.ofSeconds(1));
    assertThat(policy.withLimit(7).limit()).isEqualTo(7);
    assertThatThrownBy(() -> policy.withLimit(0))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("limit"));
  }

  @Test
  void onDenied_rejectByDefault_shadowBanKeptByCopies_notPartOfTheStateIdentity() {
    Policy plain = Policy.of(3, Duration.ofHours(1));
    assertThat(plain.onDenied()).isEqualTo(Policy.OnDenied.REJECT);
    Policy banning =
        Policy.builder()
            .limit(3)
            .window(Duration.ofHours(1))
            .onDenied(Policy.OnDenied.SHADOW_BAN)
            .build();
    assertThat(banning.shadowBans()).isTrue();
    assertThat(banning.withLimit(4).shadowBans()).isTrue();
    // How a denial reaches the client changes nothing that is counted: one state per key.
    assertThat(banning.identity()).isEqualTo(plain.identity());
    assertThat(Policy.OnDenied.fromWireName("shadow_ban")).isEqualTo(Policy.OnDenied.SHADOW_BAN);
    assertThat(Policy.OnDenied.SHADOW_BAN.wireName()).isEqualTo("shadow_ban");
    assertThatThrownBy(() -> Policy.OnDenied.fromWireName("ban"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("onDenied"));
  }

  @Test
  void onDenied_shadowBanOnAShadowPolicy_rejectedNamingOnDenied() {
    assertRejected(
        Policy.builder()
            .limit(3)
            .window(Duration.ofHours(1))
            .shadow(true)
            .onDenied(Policy.OnDenied.SHADOW_BAN),
        "onDenied",
        "a shadow rule never denies");
  }

  private static void assertRejected(Policy.Builder builder, String field, String message) {
    assertThatThrownBy(builder::build)
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessageStartingWith(field + ": ")
        .hasMessageContaining(message);
  }
}
