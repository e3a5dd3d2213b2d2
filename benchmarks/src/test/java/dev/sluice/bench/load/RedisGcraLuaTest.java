package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Redis peer of S9 must answer as redis-cell's {@code CL.THROTTLE} does, or the comparison is
 * with another command. Against a real redis-server (skipped, with the reason, where none is
 * installed; benchmarks/run.sh installs one); the script reads the server's clock, so the figures
 * that depend on elapsed time are checked within a second.
 */
class RedisGcraLuaTest {

  @Test
  void readmeExample_thenTheBurstRunsOut_asRedisCell(@TempDir Path logs) {
    assumeTrue(RedisServer.findBinary().isPresent(), "redis-server is not installed");
    try (RedisServer server = RedisServer.start(RedisServer.findBinary().get(), logs);
        RedisGcraLua lua = new RedisGcraLua("lua", server, new ThrottleParameters(15, 30, 60))) {
      // redis-cell's README: CL.THROTTLE user123 15 30 60 on a fresh key.
      assertThat(lua.call("user123", "15", "30", "60")).containsExactly(0L, 16L, 15L, -1L, 2L);
      for (int i = 14; i >= 0; i--) {
        List<Object> answer = lua.call("user123", "15", "30", "60");
        assertThat(answer.subList(0, 3)).containsExactly(0L, 16L, (long) i);
      }
      // The 17th within the period is limited: the next emission interval (2 s) is its wait, and
      // the key is full for the 16 intervals (32 s) it holds.
      List<Object> limited = lua.call("user123", "15", "30", "60");
      assertThat(limited.subList(0, 3)).containsExactly(1L, 16L, 0L);
      assertThat((Long) limited.get(3)).isBetween(1L, 2L);
      assertThat((Long) limited.get(4)).isBetween(31L, 32L);
      // A quantity beyond the whole tolerance can never pass: retry after -1, as redis-cell.
      assertThat(lua.call("other", "15", "30", "60", "17")).containsExactly(1L, 16L, 16L, -1L, 0L);
    }
  }
}
