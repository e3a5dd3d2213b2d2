package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The denied-until cache changes no decision: a client in front of limiter A answers exactly as
 * limiter B answers the same requests at the same instants, for random traffic on a few keys with
 * random costs. So it is never more permissive than the limiter, and never denies what the limiter
 * would allow. Its local retry-after never exceeds the limiter's.
 */
@ExtendWith(Seeds.class)
class DeniedCachePropertyTest {

  @RepeatedTest(50)
  void tryAcquire_randomTraffic_decidesExactlyAsTheLimiter() {
    Random random = Seeds.random();

    ManualTimeSource time =
        ManualTimeSource.at(
            Instant.parse("2026-01-01T00:00:00Z").plusMillis(random.nextInt(60_000)));
    Algorithm algorithm = Algorithm.values()[random.nextInt(Algorithm.values().length)];
    Policy policy =
        Policy.builder()
            .algorithm(algorithm)
            .limit(1 + random.nextInt(10))
            .window(Duration.ofSeconds(1 + random.nextInt(60)))
            .build();
    System.out.println("DeniedCachePropertyTest policy=" + policy);
    ReferenceLimiter behindClient = new ReferenceLimiter(time).withRule("r", policy);
    ReferenceLimiter reference = new ReferenceLimiter(time).withRule("r", policy);
    SluiceClient client =
        SluiceClient.builder()
            .nanoClock(time::nowNanos)
            .coalescing(random.nextBoolean())
            .wrap(behindClient);
    List<String> keys = List.of("a", "b", "c");

    int local = 0;
    for (int i = 0; i < 2_000; i++) {
      time.advanceNanos(
          (long) (random.nextDouble() * policy.windowNanos() / (2 + random.nextInt(20))));
      String key = keys.get(random.nextInt(keys.size()));
      long capacity = Math.max(1, Math.min(LimiterAlgorithm.of(policy).capacity(), 4));
      long permits = 1 + random.nextInt((int) capacity);
      Decision expected = reference.tryAcquire("r", key, permits);
      Decision actual = client.tryAcquire("r", key, permits);
      assertThat(actual.allowed())
          .as("request %d: %s %d at %d", i, key, permits, time.nowNanos())
          .isEqualTo(expected.allowed());
      if (actual.decidedBy() == DecidedBy.DENIED_CACHE) {
        local++;
        assertThat(actual.retryAfterNanos())
            .isPositive()
            .isLessThanOrEqualTo(expected.retryAfterNanos());
      }
    }
    System.out.println("DeniedCachePropertyTest local answers=" + local);
  }
}
