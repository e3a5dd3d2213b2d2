package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Bad options are refused at once with the field named; bad requests count nothing. */
class BuilderValidationTest {

  @Test
  void builder_badOptions_nameTheField() {
    assertThatThrownBy(() -> SluiceClient.builder().callTimeout(Duration.ZERO))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("callTimeout"));
    assertThatThrownBy(() -> SluiceClient.builder().probeInterval(Duration.ofMillis(-1)))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("probeInterval"));
    assertThatThrownBy(() -> SluiceClient.builder().deniedCacheSize(-1))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("deniedCacheSize"));
    assertThatThrownBy(() -> SluiceClient.builder().clusterName(" "))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("clusterName"));
    assertThatThrownBy(
            () -> SluiceClient.builder().failurePolicy("bad name!", FailurePolicy.FAIL_CLOSED))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("name"));
  }

  @Test
  void middlewareOptions_bad_areRefusedWithTheField() {
    ReferenceLimiter limiter =
        new ReferenceLimiter(ManualTimeSource.at(Instant.EPOCH))
            .withRule("login", Policy.of(5, Duration.ofMinutes(1)));
    assertThatThrownBy(() -> RateLimitGate.builder(limiter).rule("no such/rule").build())
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("rule"));
    assertThatThrownBy(() -> RateLimitGate.builder(limiter).build())
        .hasMessageContaining("rule(...) or a policy(...)");
    assertThatThrownBy(() -> RateLimitGate.builder(limiter).cost(0))
        .hasMessageStartingWith("cost:");
    assertThatThrownBy(() -> RateLimitGate.builder(limiter).rejectStatus(200))
        .hasMessageStartingWith("rejectStatus: must be an error status");
    assertThatThrownBy(() -> RateLimitGate.builder(limiter).unavailableStatus(600))
        .hasMessageStartingWith("unavailableStatus:");
    assertThatThrownBy(() -> TrustedProxies.of("10.0.0.0/33"))
        .hasMessageStartingWith("trustedProxies:");
    assertThatThrownBy(() -> TrustedProxies.of("proxy.internal"))
        .hasMessageStartingWith("trustedProxies:");
  }

  @Test
  void tryAcquire_badRequestBehindADenial_isAnErrorAndCountsNothing() {
    ManualTimeSource time = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    ReferenceLimiter limiter =
        new ReferenceLimiter(time).withRule("login", Policy.of(2, Duration.ofMinutes(1)));
    SluiceClient client = SluiceClient.builder().nanoClock(time::nowNanos).wrap(limiter);
    client.tryAcquire("login", "k", 2);
    assertThat(client.tryAcquire("login", "k").allowed()).isFalse(); // now cached as denied
    // Neither the cache nor the limiter answers these as denials: they are errors.
    assertThatThrownBy(() -> client.tryAcquire("login", "k", 3))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));
    assertThatThrownBy(() -> client.tryAcquire("login", "k", -1))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));
    assertThatThrownBy(() -> client.tryAcquire("login", "", 1))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("key"));
    client.reset("login", "k");
    assertThat(client.peek("login", "k").remaining()).isEqualTo(2);
  }

  @Test
  void trustedProxies_matchAddressesAndRanges_neverHostnames() {
    TrustedProxies proxies = TrustedProxies.of("10.0.0.0/8", "192.168.1.7", "fd00::/8");
    assertThat(proxies.contains("10.200.3.4")).isTrue();
    assertThat(proxies.contains("11.0.0.1")).isFalse();
    assertThat(proxies.contains("192.168.1.7")).isTrue();
    assertThat(proxies.contains("192.168.1.8")).isFalse();
    assertThat(proxies.contains("fd12:3456::1")).isTrue();
    assertThat(proxies.contains("[fd12:3456::1]")).isTrue();
    assertThat(proxies.contains("2001:db8::1")).isFalse();
    assertThat(proxies.contains("localhost")).isFalse();
    assertThat(proxies.contains("999.1.1.1")).isFalse();
  }
}
