package dev.sluice.core.grid.member;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The merge rule on its own, for every algorithm: of two histories of the same key, the one that
 * admitted more (at the same instants) is judged more consumed, and never the other way round.
 */
@ExtendWith(Seeds.class)
class MostConsumedMergePolicyTest {
  private static final long T0 = 1_767_265_200_000_000_000L; // 2026-01-01T11:00:00Z

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void moreConsumed_historyWithMoreAdmissions_isKept(Algorithm algorithm) {
    Random random = Seeds.random();
    Policy policy =
        Policy.builder().algorithm(algorithm).limit(50).window(Duration.ofMinutes(1)).build();
    LimiterAlgorithm limiter = LimiterAlgorithm.of(policy);
    int fingerprint = CompiledPolicy.fingerprint(policy);
    for (int trial = 0; trial < 200; trial++) {
      long[] light = limiter.newState();
      long[] heavy = limiter.newState();
      long now = T0 + random.nextInt(60_000) * 1_000_000L;
      int lightCount = random.nextInt(25);
      int extra = 1 + random.nextInt(20);
      for (int i = 0; i < lightCount + extra; i++) {
        now += random.nextInt(200) * 1_000_000L;
        if (i < lightCount) {
          limiter.apply(light, now, 1);
        }
        limiter.apply(heavy, now, 1);
      }
      StoredState a = new StoredState(fingerprint, heavy);
      StoredState b = new StoredState(fingerprint, light);
      assertThat(MostConsumedMergePolicy.moreConsumed(limiter, b, a, now))
          .as("%s trial %d: the lighter history judged more consumed", algorithm, trial)
          .isFalse();
      long[] heavyPeekable = heavy.clone();
      long[] lightPeekable = light.clone();
      boolean differ =
          limiter.apply(heavyPeekable, now, 0).remaining()
              != limiter.apply(lightPeekable, now, 0).remaining();
      if (differ) {
        assertThat(MostConsumedMergePolicy.moreConsumed(limiter, a, b, now))
            .as("%s trial %d: the heavier history kept", algorithm, trial)
            .isTrue();
      }
    }
  }
}
