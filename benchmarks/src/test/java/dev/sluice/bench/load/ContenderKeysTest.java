package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContenderKeysTest {

  @Test
  void twoContendersOnOneLimiter_shareNoKey() throws Exception {
    // One permit an hour: a second row on the same limiter that inherited the first row's key
    // would be denied.
    BenchRule rule = new BenchRule("once", Policy.of(1, Duration.ofHours(1)));
    RateLimiter shared = LocalRateLimiter.builder().rules(List.of(rule.rule())).build();
    Contender first = new SluiceContenders.LimiterContender("first", shared, rule, () -> {});
    Contender second = new SluiceContenders.LimiterContender("second", shared, rule, () -> {});

    assertThat(first.decide("k0")).isEqualTo(Outcome.ALLOWED);
    assertThat(first.decide("k0")).isEqualTo(Outcome.DENIED);
    assertThat(second.decide("k0")).isEqualTo(Outcome.ALLOWED);
  }

  @Test
  void prefixes_neverRepeat() {
    assertThat(ContenderKeys.prefix()).isNotEqualTo(ContenderKeys.prefix());
  }
}
