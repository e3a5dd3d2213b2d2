package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Timelines of the denied-until cache in front of a real limiter. */
class DeniedUntilCacheTest {
  private final ManualTimeSource time = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
  private final ReferenceLimiter limiter =
      new ReferenceLimiter(time).withRule("login", Policy.of(5, Duration.ofMinutes(1)));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceClient client =
      SluiceClient.builder().nanoClock(time::nowNanos).meterRegistry(registry).wrap(limiter);

  @Test
  void tryAcquire_afterDenial_answersLocallyUntilRetryAfter() {
    // t=0: five allowed by the limiter, the sixth denied by it.
    for (int i = 0; i < 5; i++) {
      assertThat(client.tryAcquire("login", "ip").allowed()).isTrue();
    }
    Decision denied = client.tryAcquire("login", "ip");
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    int invocations = limiter.invocations.get();

    // t=10s: still denied, locally, with the retry-after that is left.
    time.advance(Duration.ofSeconds(10));
    Decision local = client.tryAcquire("login", "ip");
    assertThat(local.allowed()).isFalse();
    assertThat(local.decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    assertThat(local.retryAfterNanos())
        .isEqualTo(denied.retryAfterNanos() - Duration.ofSeconds(10).toNanos());
    assertThat(limiter.invocations.get()).isEqualTo(invocations);
    assertThat(counter("denied_cache")).isEqualTo(1);

    // Once the retry-after has run out, the limiter decides again, and allows.
    time.advanceNanos(local.retryAfterNanos());
    Decision after = client.tryAcquire("login", "ip");
    assertThat(after.allowed()).isTrue();
    assertThat(after.decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void tryAcquire_shadowBanRule_cachedDenialIsStillAShadowBan() {
    limiter.withRule(
        "invites",
        Policy.builder()
            .limit(1)
            .window(Duration.ofMinutes(1))
            .onDenied(Policy.OnDenied.SHADOW_BAN)
            .build());
    assertThat(client.tryAcquire("invites", "spammer").allowed()).isTrue();
    assertThat(client.tryAcquire("invites", "spammer").shadowBanned()).isTrue();
    Decision local = client.tryAcquire("invites", "spammer");
    assertThat(local.decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    assertThat(local.shadowBanned()).as("a gate must not turn a ban into a 429").isTrue();
  }

  @Test
  void tryAcquire_smallerThanDeniedCost_goesToTheLimiter() {
    // 3 taken, 2 left: asking 5 is denied, yet asking 2 must still be allowed.
    assertThat(client.tryAcquire("login", "ip", 3).allowed()).isTrue();
    assertThat(client.tryAcquire("login", "ip", 5).allowed()).isFalse();
    assertThat(client.tryAcquire("login", "ip", 5).decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    assertThat(client.tryAcquire("login", "ip", 4).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    Decision two = client.tryAcquire("login", "ip", 2);
    assertThat(two.allowed()).isTrue();
    assertThat(two.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    // Now even 1 is denied by the limiter, and from then on every cost is denied locally.
    assertThat(client.tryAcquire("login", "ip", 1).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.tryAcquire("login", "ip", 1).decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    assertThat(client.tryAcquire("login", "ip", 4).decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    // A peek (0 permits) is never answered from the cache.
    assertThat(client.tryAcquire("login", "ip", 0).decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void reset_throughClient_forgetsTheLocalDenial() {
    for (int i = 0; i < 6; i++) {
      client.tryAcquire("login", "ip");
    }
    assertThat(client.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    client.reset("login", "ip");
    assertThat(client.tryAcquire("login", "ip").allowed()).isTrue();
  }

  @Test
  void rulesPut_raisingTheLimit_forgetsTheRulesLocalDenials() {
    for (int i = 0; i < 6; i++) {
      client.tryAcquire("login", "ip");
    }
    client.rules().put(new Rule("login", Policy.of(10, Duration.ofMinutes(1))));
    Decision d = client.tryAcquire("login", "ip");
    assertThat(d.allowed()).isTrue();
    assertThat(d.decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void tryAcquire_countDeniedPolicy_isNeverCached() {
    limiter.withRule(
        "sms", Policy.builder().limit(1).window(Duration.ofMinutes(1)).countDenied(true).build());
    client.tryAcquire("sms", "user");
    assertThat(client.tryAcquire("sms", "user").allowed()).isFalse();
    assertThat(client.tryAcquire("sms", "user").decidedBy()).isEqualTo(DecidedBy.LIMITER);
  }

  @Test
  void tryAcquire_inlinePolicies_areCachedPerPolicy() {
    Policy two = Policy.of(2, Duration.ofMinutes(1));
    Policy three = Policy.of(3, Duration.ofMinutes(1));
    client.tryAcquire(two, "k", 2);
    assertThat(client.tryAcquire(two, "k", 1).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(client.tryAcquire(two, "k", 1).decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
    // Another policy on the same subject is another question for the limiter.
    Decision other = client.tryAcquire(three, "k", 1);
    assertThat(other.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    assertThat(other.allowed()).isTrue();
  }

  @Test
  void builder_deniedCacheSizeZero_turnsTheCacheOff() {
    SluiceClient uncached = SluiceClient.builder().deniedCacheSize(0).wrap(limiter);
    for (int i = 0; i < 8; i++) {
      assertThat(uncached.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.LIMITER);
    }
  }

  private double counter(String reason) {
    return registry.get("sluice.client.local.decisions").tag("reason", reason).counter().count();
  }
}
