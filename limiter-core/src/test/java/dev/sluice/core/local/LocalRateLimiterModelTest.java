package dev.sluice.core.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The local limiter adds storage, not math: on a random sequence of acquires, peeks, resets and
 * clock moves over a few keys, it answers exactly what the bare algorithm answers on a per-key
 * {@code long[]} kept by the test. Seeded ({@link Seeds}).
 */
@ExtendWith(Seeds.class)
class LocalRateLimiterModelTest {

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void randomOperations_answerAsTheBareAlgorithm(Algorithm algorithm) {
    SplittableRandom random = new SplittableRandom(Seeds.seed());
    Policy policy =
        Policy.builder()
            .algorithm(algorithm)
            .limit(1 + random.nextInt(20))
            .window(Duration.ofMillis(100 + random.nextInt(5_000)))
            .countDenied(random.nextBoolean() && !algorithm.inFlight())
            .build();
    ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
    LocalRateLimiter limiter =
        LocalRateLimiter.builder()
            .timeSource(clock)
            .rules(List.of(new Rule("model", policy)))
            .build();
    LimiterAlgorithm bare = LimiterAlgorithm.of(policy);
    Map<String, long[]> model = new HashMap<>();

    for (int step = 0; step < 3_000; step++) {
      String key = "k" + random.nextInt(4);
      String where = "step " + step + ", " + key + ", " + policy;
      int operation = random.nextInt(100);
      if (operation < 70) {
        long permits = random.nextLong(bare.capacity() + 1);
        long[] state = model.computeIfAbsent(key, k -> bare.newState());
        Decision expected = bare.apply(state, clock.nowNanos(), permits);
        assertThat(limiter.tryAcquire("model", key, permits)).as(where).isEqualTo(expected);
      } else if (operation < 85) {
        long[] state = model.getOrDefault(key, bare.newState()).clone();
        Decision expected = bare.apply(state, clock.nowNanos(), 0);
        assertThat(limiter.peek("model", key)).as(where).isEqualTo(expected);
      } else if (operation < 88) {
        limiter.reset("model", key);
        model.remove(key);
      } else {
        // Mostly small steps, sometimes a jump past the state's time-to-live.
        long stepNanos =
            random.nextInt(10) == 0
                ? random.nextLong(3 * policy.windowNanos())
                : random.nextLong(policy.windowNanos() / 10 + 1);
        clock.advanceNanos(stepNanos);
      }
    }
  }
}
