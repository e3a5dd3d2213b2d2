package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.BatchMode;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.local.LocalRateLimiter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every runtime counts its decisions the same way: here over the local limiter. */
class DecisionMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
  private final LocalRateLimiter local =
      LocalRateLimiter.builder()
          .timeSource(clock)
          .rules(
              List.of(
                  new Rule("login", Policy.of(2, Duration.ofMinutes(1))),
                  new Rule(
                      "shadowed",
                      Policy.builder().limit(1).window(Duration.ofMinutes(1)).shadow(true).build()),
                  new Rule(
                      "invites",
                      Policy.builder()
                          .limit(1)
                          .window(Duration.ofMinutes(1))
                          .onDenied(Policy.OnDenied.SHADOW_BAN)
                          .build()),
                  new Rule(
                      "bucket",
                      Policy.builder()
                          .algorithm(Algorithm.TOKEN_BUCKET)
                          .limit(1)
                          .window(Duration.ofSeconds(1))
                          .build()),
                  new Rule(
                      "slots",
                      Policy.builder()
                          .algorithm(Algorithm.CONCURRENCY)
                          .limit(3)
                          .window(Duration.ofSeconds(30))
                          .build())))
          .build();
  private final RateLimiter limiter = DecisionMetrics.record(local, registry);

  @Test
  void decisions_countedByRuleAndOutcome_refusalsNot() {
    limiter.tryAcquire("login", "k");
    limiter.tryAcquire("login", "k");
    limiter.tryAcquire("login", "k");
    limiter.tryAcquire("shadowed", "k");
    limiter.tryAcquire("shadowed", "k");
    limiter.tryAcquire(Policy.of(1, Duration.ofMinutes(1)), "k", 1);
    limiter.tryAcquireAll(List.of(Check.of("login", "other"), Check.of("login", "k")));
    limiter.tryAcquireAll(List.of(Check.of("login", "third")), BatchMode.ALL);
    assertThatThrownBy(() -> limiter.tryAcquire("missing", "k"))
        .isInstanceOf(UnknownRuleException.class);
    limiter.peek("login", "k");
    limiter.releaseWithoutProof(Check.of("login", "k", 1));

    assertThat(count("login", "allowed")).isEqualTo(4);
    assertThat(count("login", "denied")).isEqualTo(2);
    assertThat(count("shadowed", "allowed")).isEqualTo(1);
    assertThat(count("shadowed", "shadow_denied")).isEqualTo(1);
    assertThat(count("~inline", "allowed")).isEqualTo(1);
    assertThat(registry.find("sluice.decisions").tag("rule", "missing").counters()).isEmpty();
    assertThat(registry.get(DecisionMetrics.DECISION_TIMER).timer().count())
        .as("one per call or batch that was decided")
        .isEqualTo(8);
  }

  @Test
  void shadowBan_deniedUnderAShadowBanRule_countedAsShadowBanned_notDenied() {
    Decision first = limiter.tryAcquire("invites", "spammer");
    Decision second = limiter.tryAcquire("invites", "spammer");
    Decision third = limiter.tryAcquire("invites", "spammer");
    assertThat(first.allowed()).isTrue();
    assertThat(first.shadowBanned()).isFalse();
    // The limit holds: the banned requests are denials, and count in no window.
    assertThat(second.allowed()).isFalse();
    assertThat(second.shadowBanned()).isTrue();
    assertThat(third.shadowBanned()).isTrue();
    assertThat(limiter.peek("invites", "spammer").remaining()).isZero();
    assertThat(count("invites", "allowed")).isEqualTo(1);
    assertThat(count("invites", "shadow_banned")).isEqualTo(2);
    assertThat(count("invites", "denied")).isZero();
  }

  @Test
  void waits_recordedAsAHistogramOfDelaysGiven_plainAdmissionsNot() {
    limiter.tryAcquire("bucket", "k");
    limiter.tryAcquire(Check.of("bucket", "k", 1).withMaxWait(Duration.ofSeconds(5)));
    limiter.tryAcquire(Check.of("bucket", "k", 1).withMaxWait(Duration.ofSeconds(5)));
    limiter.tryAcquire(Check.of("bucket", "k", 1).withMaxWait(Duration.ofMillis(1)));

    var waits = registry.get(WaitMetrics.WAIT).tag("rule", "bucket").timer();
    assertThat(waits.count()).as("two waits given; the plain one and the denial not").isEqualTo(2);
    assertThat(waits.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_000 + 2_000);
    assertThat(waits.max(TimeUnit.MILLISECONDS)).isEqualTo(2_000);
  }

  @Test
  void permits_acquiredReleasedAndInFlight() {
    long a = limiter.tryAcquire("slots", "k", 2).permitId();
    long b = limiter.tryAcquire("slots", "k", 1).permitId();
    limiter.tryAcquire("slots", "k", 1); // denied: holds nothing
    assertThat(inFlight()).isEqualTo(3);

    limiter.releasePermit("slots", "k", a);
    limiter.releasePermit("slots", "k", a); // twice: frees nothing, counts nothing
    assertThat(inFlight()).isEqualTo(1);
    assertThat(permits("acquired")).isEqualTo(3);
    assertThat(permits("released")).isEqualTo(2);
    limiter.releasePermit("slots", "k", b);
    assertThat(inFlight()).isZero();
  }

  @Test
  void permits_neverReleased_expireFromTheGauge() {
    SimpleMeterRegistry own = new SimpleMeterRegistry();
    long[] now = {0};
    PermitsInFlight tracked = new PermitsInFlight(own, () -> now[0]);
    Decision held = Decision.allow(3, 2, Duration.ofSeconds(30).toNanos()).withPermitId(7);
    tracked.acquired(Check.of("slots", "k", 1), held);
    assertThat(own.get(PermitsInFlight.IN_FLIGHT).gauge().value()).isEqualTo(1);

    now[0] = Duration.ofSeconds(30).toNanos() - 1;
    assertThat(own.get(PermitsInFlight.IN_FLIGHT).gauge().value()).isEqualTo(1);
    now[0]++;
    assertThat(own.get(PermitsInFlight.IN_FLIGHT).gauge().value()).isZero();
    assertThat(own.get(PermitsInFlight.PERMITS).tag("event", "expired").counter().count())
        .isEqualTo(1);
  }

  private double inFlight() {
    return registry.get(PermitsInFlight.IN_FLIGHT).gauge().value();
  }

  private double permits(String event) {
    return registry.get(PermitsInFlight.PERMITS).tag("event", event).counter().count();
  }

  @Test
  void record_twiceInOneRegistry_countsOnce() {
    RateLimiter twice = DecisionMetrics.record(limiter, registry);
    assertThat(twice).isSameAs(limiter);
    twice.tryAcquire("login", "k");
    assertThat(count("login", "allowed")).isEqualTo(1);
  }

  private double count(String rule, String outcome) {
    return registry
        .get(DecisionMetrics.DECISIONS)
        .tag("rule", rule)
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  /**
   * Reservations made, committed and expired, each counted once: a denied one holds nothing, a
   * refused second commit counts nothing, and one whose ttl passed is counted expired by the store
   * that drops it (the next step that stores its key), once, however often it is looked at.
   */
  @Test
  void reservations_countedOnceEach() {
    Reservation committed = limiter.reserve("login", "r", 1, Duration.ofMinutes(1));
    Reservation expiring = limiter.reserve("login", "r", 1, Duration.ofMillis(1));
    Reservation denied = limiter.reserve("login", "r", 1, Duration.ofMinutes(1));
    assertThat(denied.id()).isNull();

    limiter.commit(committed.id(), 0);
    assertThatThrownBy(() -> limiter.commit(committed.id(), 0))
        .isInstanceOf(ReservationException.class);
    clock.advance(Duration.ofMillis(2));
    assertThat(limiter.peek("login", "r").remaining()).isEqualTo(1);
    assertThatThrownBy(() -> limiter.commit(expiring.id(), 0))
        .isInstanceOf(ReservationException.class);
    assertThat(registry.get("sluice.reservations.expired").functionCounter().count())
        .as("the refused commit's step stored the key without the expired reservation")
        .isEqualTo(1);

    limiter.reserve("login", "r", 1, Duration.ofMinutes(1));
    assertThat(reservations("reserved")).isEqualTo(3);
    assertThat(reservations("committed")).isEqualTo(1);
    assertThat(registry.get("sluice.reservations.expired").functionCounter().count())
        .as("not again")
        .isEqualTo(1);
    assertThat(
            registry
                .get(DecisionMetrics.DECISIONS)
                .tag("rule", "login")
                .tag("outcome", "denied")
                .counter()
                .count())
        .as("an estimate is a decision")
        .isEqualTo(1);
  }

  private double reservations(String event) {
    return registry.get("sluice.reservations").tag("event", event).counter().count();
  }
}
