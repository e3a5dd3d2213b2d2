package dev.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.BatchMode;
import dev.sluice.core.Check;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.local.LocalRateLimiter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every runtime counts its decisions the same way: here over the local limiter. */
class MeteredRateLimiterTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final LocalRateLimiter local =
      LocalRateLimiter.builder()
          .timeSource(ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z")))
          .rules(
              List.of(
                  new Rule("login", Policy.of(2, Duration.ofMinutes(1))),
                  new Rule(
                      "shadowed",
                      Policy.builder()
                          .limit(1)
                          .window(Duration.ofMinutes(1))
                          .shadow(true)
                          .build())))
          .build();
  private final RateLimiter limiter = MeteredRateLimiter.wrap(local, registry);

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
    limiter.release("login", "k", 1);

    assertThat(count("login", "allowed")).isEqualTo(4);
    assertThat(count("login", "denied")).isEqualTo(2);
    assertThat(count("shadowed", "allowed")).isEqualTo(1);
    assertThat(count("shadowed", "shadow_denied")).isEqualTo(1);
    assertThat(count("~inline", "allowed")).isEqualTo(1);
    assertThat(registry.find("sluice.decisions").tag("rule", "missing").counters()).isEmpty();
    assertThat(registry.get(MeteredRateLimiter.DECISION_TIMER).timer().count())
        .as("one per call or batch that was decided")
        .isEqualTo(8);
  }

  @Test
  void wrap_twiceInOneRegistry_countsOnce() {
    RateLimiter twice = MeteredRateLimiter.wrap(limiter, registry);
    assertThat(twice).isSameAs(limiter);
    twice.tryAcquire("login", "k");
    assertThat(count("login", "allowed")).isEqualTo(1);
  }

  private double count(String rule, String outcome) {
    return registry
        .get(MeteredRateLimiter.DECISIONS)
        .tag("rule", rule)
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
