package dev.sluice.core.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.contract.RateLimiterContract;
import dev.sluice.core.rules.InMemoryRuleStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LocalRateLimiterTest extends RateLimiterContract {
  private ManualTimeSource clock;
  private LocalRateLimiter limiter;

  @BeforeEach
  void setUp() {
    clock = ManualTimeSource.at(Instant.parse("2026-01-01T11:00:00Z"));
    limiter = LocalRateLimiter.builder().timeSource(clock).build();
  }

  @Override
  protected RateLimiter limiter() {
    return limiter;
  }

  @Override
  protected ManualTimeSource clock() {
    return clock;
  }

  @Test
  void idleKey_expiresAfterTheAlgorithmsStateTtl() {
    // sliding_window state matters for two windows: 2 x 10 s.
    limiter.rules().put(new Rule("login", Policy.of(5, Duration.ofSeconds(10))));
    limiter.tryAcquire("login", "a", 1);
    limiter.tryAcquire("login", "b", 1);
    assertThat(limiter.keyCount()).isEqualTo(2);

    clock.advance(Duration.ofSeconds(15));
    limiter.tryAcquire("login", "b", 2); // b stays active
    clock.advance(Duration.ofSeconds(6)); // a idle 21 s > 20 s; b idle 6 s
    limiter.cleanUp();

    assertThat(limiter.keyCount()).isEqualTo(1);
    // b's two permits at 15 s weigh floor(2 * 0.9) = 1 at 21 s.
    assertThat(limiter.peek("login", "b").remaining()).isEqualTo(4);
    assertThat(limiter.peek("login", "a").remaining()).isEqualTo(5);
  }

  @Test
  void peek_neitherCreatesStateNorExtendsItsLife() {
    limiter.rules().put(new Rule("login", Policy.of(5, Duration.ofSeconds(10))));
    limiter.peek("login", "ghost");
    limiter.tryAcquire("login", "ghost2", 0);
    assertThat(limiter.keyCount()).isZero();

    limiter.tryAcquire("login", "a", 1);
    clock.advance(Duration.ofSeconds(19));
    limiter.peek("login", "a");
    clock.advance(Duration.ofSeconds(2));
    limiter.cleanUp();
    assertThat(limiter.keyCount()).isZero();
  }

  @Test
  void maxKeys_boundsTheStoredKeys() {
    LocalRateLimiter bounded =
        LocalRateLimiter.builder()
            .timeSource(clock)
            .rules(List.of(new Rule("api", Policy.of(10, Duration.ofMinutes(1)))))
            .maxKeys(100)
            .build();
    for (int i = 0; i < 5_000; i++) {
      bounded.tryAcquire("api", "user-" + i, 1);
    }
    bounded.cleanUp();

    assertThat(bounded.keyCount()).isLessThanOrEqualTo(100);
  }

  @Test
  void builder_rejectsANonPositiveMaxKeys() {
    assertThatThrownBy(() -> LocalRateLimiter.builder().maxKeys(0))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("maxKeys"));
  }

  @Test
  void rules_isTheStoreItWasBuiltWith() {
    InMemoryRuleStore store = new InMemoryRuleStore();
    LocalRateLimiter withStore = LocalRateLimiter.builder().rules(store).timeSource(clock).build();
    store.put(
        new Rule(
            "late",
            Policy.builder()
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(1)
                .window(Duration.ofSeconds(1))
                .build()));

    assertThat(withStore.rules()).isSameAs(store);
    assertThat(withStore.tryAcquire("late", "k", 1).allowed()).isTrue();
  }
}
