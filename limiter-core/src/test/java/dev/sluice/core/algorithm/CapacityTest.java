package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link Limit#capacity()} and {@link Policy#capacity()} are what the algorithms hold: surfaces
 * (headers, failure answers, Envoy) read them from the model, never from the algorithm package.
 */
class CapacityTest {

  @Test
  void limitCapacity_everyAlgorithmAndBurst_isTheAlgorithmsCapacity() {
    for (Algorithm algorithm : Algorithm.values()) {
      for (long limit : new long[] {1, 7, 100}) {
        Limit.Builder builder =
            Limit.builder().algorithm(algorithm).limit(limit).window(Duration.ofMinutes(1));
        if (algorithm.hasBurst()) {
          builder.burst(algorithm == Algorithm.TOKEN_BUCKET ? 3 : 0);
        }
        Limit one = builder.build();
        assertThat(one.capacity())
            .as("%s", one.describe())
            .isEqualTo(LimiterAlgorithm.of(one, false).capacity())
            .isEqualTo(LimiterAlgorithm.of(one, true).capacity());
        Limit defaults =
            Limit.builder().algorithm(algorithm).limit(limit).window(Duration.ofMinutes(1)).build();
        assertThat(defaults.capacity())
            .as("%s", defaults.describe())
            .isEqualTo(LimiterAlgorithm.of(defaults, false).capacity());
      }
    }
  }

  @Test
  void policyCapacity_severalLimits_isTheSmallest() {
    Policy policy =
        Policy.builder()
            .limit(10)
            .window(Duration.ofSeconds(1))
            .and(
                Limit.builder()
                    .algorithm(Algorithm.GCRA)
                    .limit(100)
                    .window(Duration.ofMinutes(1))
                    .burst(4)
                    .build())
            .build();
    assertThat(policy.capacity()).isEqualTo(5).isEqualTo(LimiterAlgorithm.of(policy).capacity());
  }
}
