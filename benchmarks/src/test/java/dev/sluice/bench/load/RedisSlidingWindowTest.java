package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.test.Seeds;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Redis peer's Lua script must make the same decisions as Sluice's {@link
 * dev.sluice.core.algorithm.SlidingWindow}, or the comparison is between different algorithms. Runs
 * against a real redis-server (skipped, with the reason, where none is installed; benchmarks/run.sh
 * installs one).
 */
@ExtendWith(Seeds.class)
class RedisSlidingWindowTest {

  @Test
  void script_randomTimeline_decidesLikeSlidingWindow(@TempDir Path logs) {
    assumeTrue(RedisServer.findBinary().isPresent(), "redis-server is not installed");
    Random random = Seeds.random();
    long limit = 1 + random.nextInt(20);
    long windowMicros = Duration.ofSeconds(10).toNanos() / 1_000;
    LimiterAlgorithm algorithm = LimiterAlgorithm.of(Policy.of(limit, Duration.ofSeconds(10)));
    long[] state = algorithm.newState();

    try (RedisServer server = RedisServer.start(RedisServer.findBinary().get(), logs);
        RedisSlidingWindow lua =
            new RedisSlidingWindow("lua", server, "t", limit, Duration.ofSeconds(10))) {
      long nowMicros = 1_700_000_000_000_000L + random.nextInt(10_000_000);
      int allowed = 0;
      for (int i = 0; i < 2_000; i++) {
        // Mostly bursts within a window, sometimes a gap of more than a whole window.
        nowMicros += random.nextInt(10) == 0 ? random.nextInt(25_000_000) : random.nextInt(400_000);
        Decision expected = algorithm.apply(state, nowMicros * 1_000, 1);
        boolean actual = lua.allowedAt("key", limit, windowMicros, nowMicros);
        assertThat(actual)
            .as("request %d at %d µs, limit %d", i, nowMicros, limit)
            .isEqualTo(expected.allowed());
        allowed += actual ? 1 : 0;
      }
      assertThat(allowed).isBetween(1, 1_999); // the timeline exercised both answers
    }
  }

  @Test
  void script_workedExample_fivePerTenSecondsAdmitsAtTwelveSeconds(@TempDir Path logs) {
    assumeTrue(RedisServer.findBinary().isPresent(), "redis-server is not installed");
    try (RedisServer server = RedisServer.start(RedisServer.findBinary().get(), logs);
        RedisSlidingWindow lua =
            new RedisSlidingWindow("lua", server, "t", 5, Duration.ofSeconds(10))) {
      long w = 10_000_000;
      long t0 = 170_000_000L * w; // a window boundary
      for (long second : new long[] {0, 2, 4, 6, 8}) {
        assertThat(lua.allowedAt("ip", 5, w, t0 + second * 1_000_000)).isTrue();
      }
      assertThat(lua.allowedAt("ip", 5, w, t0 + 9_000_000)).as("6th in the window").isFalse();
      // t=12s: weight 0.8, floor(5 * 0.8) + 0 = 4 < 5
      assertThat(lua.allowedAt("ip", 5, w, t0 + 12_000_000)).isTrue();
      // the same instant again: floor(5 * 0.8) + 1 = 5, no room left
      assertThat(lua.allowedAt("ip", 5, w, t0 + 12_000_000)).isFalse();
    }
  }
}
