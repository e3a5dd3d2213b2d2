package dev.sluice.core.headers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import dev.sluice.core.headers.RateLimitHeaders.QuotaPolicy;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {
  private static final long SECOND = 1_000_000_000L;

  /** 10 per second and 1,000 per hour: the REST API's example. */
  private static final Policy API =
      Policy.builder()
          .limit(10)
          .window(Duration.ofSeconds(1))
          .and(Limit.of(1_000, Duration.ofHours(1)))
          .build();

  @Test
  void of_oneLimitAdmitted_everyCountHeaderInOrder_noRetryAfter() {
    Decision admitted = Decision.allow(5, 2, 37 * SECOND + 1);
    List<Header> headers =
        RateLimitHeaders.of("login", Policy.of(5, Duration.ofMinutes(1)), admitted);
    assertThat(headers)
        .containsExactly(
            new Header("RateLimit-Policy", "\"login\";q=5;w=60"),
            new Header("RateLimit", "\"login\";r=2;t=38"),
            new Header("X-RateLimit-Limit", "5"),
            new Header("X-RateLimit-Remaining", "2"),
            new Header("X-RateLimit-Reset", "38"));
  }

  @Test
  void of_severalLimits_policyListsEach_rateLimitNamesTheBindingOne() {
    // The hour binds (say 1,000 taken): the pipeline says so with index 1.
    Decision denied =
        Decision.deny(1_000, 0, 1_800 * SECOND, 3_600 * SECOND).withBindingLimit(1, 3_600 * SECOND);
    Map<String, String> headers = map(RateLimitHeaders.of("api", API, denied));
    assertThat(headers)
        .containsEntry("RateLimit-Policy", "\"api-1s\";q=10;w=1, \"api-1h\";q=1000;w=3600")
        .containsEntry("RateLimit", "\"api-1h\";r=0;t=3600")
        .containsEntry("X-RateLimit-Limit", "1000")
        .containsEntry("Retry-After", "1800");
    Decision admitted = Decision.allow(10, 9, SECOND).withBindingLimit(0, SECOND);
    assertThat(map(RateLimitHeaders.of("api", API, admitted)))
        .containsEntry("RateLimit", "\"api-1s\";r=9;t=1")
        .containsEntry("X-RateLimit-Limit", "10");
  }

  @Test
  void of_severalLimits_resetIsTheBindingLimits_notWhenEveryLimitIsWhole() {
    // The second's limit denied; the hour's (40 taken) is whole only in 3,600 s. The header names
    // the second, so its t and X-RateLimit-Reset are the second's reset: t=3600 beside
    // Retry-After 1 told a client to wait an hour for a limit that frees up in a second.
    Decision denied =
        Decision.deny(10, 0, SECOND / 2, 3_600 * SECOND).withBindingLimit(0, SECOND / 2);
    assertThat(map(RateLimitHeaders.of("api", API, denied)))
        .containsEntry("RateLimit", "\"api-1s\";r=0;t=1")
        .containsEntry("X-RateLimit-Reset", "1")
        .containsEntry("Retry-After", "1");
  }

  @Test
  void of_twoLimitsOfOneQuota_theIndexNotTheQuotaNamesTheBindingOne() {
    // 3 per second and 3 per hour: matching the quota would always name the first.
    Policy same =
        Policy.builder()
            .limit(3)
            .window(Duration.ofSeconds(1))
            .and(Limit.of(3, Duration.ofHours(1)))
            .build();
    Decision hour =
        Decision.deny(3, 0, 3_000 * SECOND, 3_600 * SECOND).withBindingLimit(1, 3_600 * SECOND);
    assertThat(map(RateLimitHeaders.of("otp", same, hour)))
        .containsEntry("RateLimit-Policy", "\"otp-1s\";q=3;w=1, \"otp-1h\";q=3;w=3600")
        .containsEntry("RateLimit", "\"otp-1h\";r=0;t=3600");
  }

  @Test
  void quotaPolicies_twoLimitsOfOneWindow_secondNamedByItsPlace_quotaIsTheCapacity() {
    Policy twoMinutes =
        Policy.builder()
            .limit(5)
            .window(Duration.ofMinutes(1))
            .and(
                Limit.builder()
                    .algorithm(Algorithm.GCRA)
                    .limit(100)
                    .window(Duration.ofMinutes(1))
                    .burst(9)
                    .build())
            .build();
    assertThat(RateLimitHeaders.quotaPolicies("pay", twoMinutes))
        .containsExactly(
            new QuotaPolicy("pay-1m", 5, 60 * SECOND),
            new QuotaPolicy("pay-1m-2", 10, 60 * SECOND)); // gcra: burst + 1
  }

  @Test
  void of_subSecondWindowAndDelays_roundUpToWholeSeconds_atLeastOne() {
    Policy fast = Policy.of(4, Duration.ofMillis(250));
    Decision denied = Decision.deny(4, 0, 1, 250_000_000L);
    assertThat(map(RateLimitHeaders.of("fast", fast, denied)))
        .containsEntry("RateLimit-Policy", "\"fast\";q=4;w=1")
        .containsEntry("RateLimit", "\"fast\";r=0;t=1")
        .containsEntry("X-RateLimit-Reset", "1")
        .containsEntry("Retry-After", "1");
    Decision longer = Decision.deny(4, 0, 2 * SECOND + 1, 3 * SECOND);
    assertThat(map(RateLimitHeaders.of("fast", fast, longer))).containsEntry("Retry-After", "3");
    Decision zero = Decision.deny(4, 0, 0, 0);
    assertThat(map(RateLimitHeaders.of("fast", fast, zero))).containsEntry("Retry-After", "1");
  }

  @Test
  void of_failurePolicyAnswers_noCounts_retryAfterOnlyOnADenial() {
    Decision open = new Decision(true, 5, 5, 0, 0, 0, false, DecidedBy.FAIL_OPEN);
    assertThat(RateLimitHeaders.of("login", Policy.of(5, Duration.ofMinutes(1)), open)).isEmpty();
    Decision closed =
        new Decision(false, 5, 0, 2_500_000_000L, 2_500_000_000L, 0, false, DecidedBy.FAIL_CLOSED);
    assertThat(RateLimitHeaders.of("login", Policy.of(5, Duration.ofMinutes(1)), closed))
        .containsExactly(new Header("Retry-After", "3"));
    // A policy that cannot be read here (the grid is away) gives the same.
    assertThat(RateLimitHeaders.of("login", null, Decision.deny(5, 0, SECOND, SECOND)))
        .containsExactly(new Header("Retry-After", "1"));
  }

  @Test
  void of_cachedDenialAndLeaseAnswers_reportCounts() {
    Decision cached =
        Decision.deny(5, 0, 3 * SECOND, 50 * SECOND).decidedBy(DecidedBy.DENIED_CACHE);
    assertThat(map(RateLimitHeaders.of("login", Policy.of(5, Duration.ofMinutes(1)), cached)))
        .containsEntry("X-RateLimit-Remaining", "0")
        .containsEntry("Retry-After", "3");
  }

  @Test
  void of_familiesSwitchedOff_areLeftOut_andNamesAreEscaped() {
    List<QuotaPolicy> quotas = List.of(new QuotaPolicy("edge.\"a\\b\"é", 2, 60 * SECOND));
    Decision denied = Decision.deny(2, 0, 5 * SECOND, 60 * SECOND);
    assertThat(RateLimitHeaders.of(quotas, denied, EnumSet.of(Family.RATELIMIT)))
        .containsExactly(
            new Header("RateLimit-Policy", "\"edge.\\\"a\\\\b\\\"?\";q=2;w=60"),
            new Header("RateLimit", "\"edge.\\\"a\\\\b\\\"?\";r=0;t=60"));
    assertThat(RateLimitHeaders.of(quotas, denied, EnumSet.of(Family.RETRY_AFTER)))
        .containsExactly(new Header("Retry-After", "5"));
    assertThat(RateLimitHeaders.of(quotas, denied, EnumSet.noneOf(Family.class))).isEmpty();
  }

  @Test
  void of_indexBeyondAPolicyChangedSince_reportsOnTheFirstLimit() {
    Decision fromTwoLimits = Decision.allow(5, 4, SECOND).withBindingLimit(1, SECOND);
    assertThat(
            map(RateLimitHeaders.of("login", Policy.of(5, Duration.ofMinutes(1)), fromTwoLimits)))
        .containsEntry("RateLimit", "\"login\";r=4;t=1");
  }

  private static Map<String, String> map(List<Header> headers) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Header header : headers) {
      assertThat(map.put(header.name(), header.value())).as("%s once", header.name()).isNull();
    }
    return map;
  }
}
