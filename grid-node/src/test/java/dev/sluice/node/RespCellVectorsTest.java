package dev.sluice.node;

import static dev.sluice.node.RedisClients.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ManualTimeSource;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * redis-cell's own vectors through Lettuce, in RESP2 and RESP3, against a real member on a manual
 * clock: its README's example, its limiter table ({@code it_rate_limits} in {@code
 * src/cell/mod.rs}), its end-to-end test ({@code tests/e2e.rs}), its rounding of seconds, and where
 * Sluice answers an error instead (documented in docs/resp.md).
 */
class RespCellVectorsTest {
  @RegisterExtension static final RespNode NODE = new RespNode();
  static final ManualTimeSource CLOCK = NODE.clock;

  private static List<Object> throttle(
      StatefulRedisConnection<String, String> redis, String key, long... numbers) {
    Object[] args = new Object[numbers.length + 1];
    args[0] = key;
    for (int i = 0; i < numbers.length; i++) {
      args[i + 1] = numbers[i];
    }
    return call(redis, "CL.THROTTLE", args);
  }

  /** {@code CL.THROTTLE user123 15 30 60} on a fresh key answers {@code 0 16 15 -1 2}. */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void readme_firstCall(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          assertThat(throttle(redis, prefix + "user123", 15, 30, 60))
              .containsExactly(0L, 16L, 15L, -1L, 2L);
          assertThat(throttle(redis, prefix + "user123", 15, 30, 60, 1))
              .containsExactly(0L, 16L, 14L, -1L, 4L);
        });
  }

  /**
   * redis-cell's limiter table: a limit of 5 (max_burst 4) at 1 per second, {@code (offset,
   * quantity) -> (limited, remaining, reset after, retry after)} in whole seconds as it rounds
   * them.
   */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void limiterTable_itRateLimits(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "foo";
          long start = CLOCK.nowNanos();
          long[][] cases = {
            // offset ms, quantity, limited, remaining, retry after s, reset after s
            {0, 6, 1, 5, -1, 0}, // never more than the maximum
            {0, 1, 0, 4, -1, 1},
            {0, 1, 0, 3, -1, 2},
            {0, 1, 0, 2, -1, 3},
            {0, 1, 0, 1, -1, 4},
            {0, 1, 0, 0, -1, 5},
            {0, 1, 1, 0, 1, 5},
            {3000, 1, 0, 2, -1, 3},
            {3100, 1, 0, 1, -1, 4}, // reset after 3.9 s: rounded up
            {4000, 1, 0, 1, -1, 4},
            {8000, 1, 0, 4, -1, 1},
            {9500, 1, 0, 4, -1, 1},
            {9500, 0, 0, 4, -1, 1}, // quantity 0 peeks
            {9500, 2, 0, 2, -1, 3}, // a larger quantity takes more
            {9500, 5, 1, 2, 3, 3}, // and cannot exceed the limit
          };
          for (int i = 0; i < cases.length; i++) {
            long[] c = cases[i];
            CLOCK.advanceNanos(start + c[0] * 1_000_000L - CLOCK.nowNanos());
            assertThat(throttle(redis, key, 4, 1, 1, c[1]))
                .as("case %d", i)
                .containsExactly(c[2], 5L, c[3], c[4], c[5]);
          }
        });
  }

  /** tests/e2e.rs: max_burst 0, 1 per 2 s; allowed, limited, allowed again after retry_after. */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void endToEnd_allowedThenLimitedThenAllowedAfterRetryAfter(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "user123";
          assertThat(throttle(redis, key, 0, 1, 2, 1)).containsExactly(0L, 1L, 0L, -1L, 2L);
          List<Object> limited = throttle(redis, key, 0, 1, 2, 1);
          assertThat(limited).containsExactly(1L, 1L, 0L, 2L, 2L);
          CLOCK.advance(Duration.ofSeconds((Long) limited.get(3)));
          assertThat(throttle(redis, key, 0, 1, 2, 1)).containsExactly(0L, 1L, 0L, -1L, 2L);
        });
  }

  /**
   * redis-cell's rounding: whole seconds, plus one when at least a millisecond is left over. Burst
   * 0, 1 per 2 s, one taken: 1.5 ms later the wait is 1.5 ms (1 s), 1.0005 ms later 0.5 ms (0 s).
   */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void rounding_aMillisecondOrMoreRoundsUp_lessRoundsDown(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "round";
          assertThat(throttle(redis, key, 0, 1, 2)).containsExactly(0L, 1L, 0L, -1L, 2L);
          CLOCK.advanceNanos(1_998_500_000L);
          assertThat(throttle(redis, key, 0, 1, 2)).containsExactly(1L, 1L, 0L, 1L, 1L);
          CLOCK.advanceNanos(1_000_000L);
          assertThat(throttle(redis, key, 0, 1, 2)).containsExactly(1L, 1L, 0L, 0L, 0L);
        });
  }

  /**
   * One state per key whatever the parameters, as in redis-cell, but carried over: burst 2 at 3 per
   * minute exhausted, then called at 3 per 2 minutes, the three admitted still count (redis-cell
   * would reread its stored instant under the new rate and admit at once).
   */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void otherParameters_onTheSameKey_carryTheStateOver(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "reshaped";
          for (int i = 0; i < 3; i++) {
            assertThat(throttle(redis, key, 2, 3, 60).get(0)).isEqualTo(0L);
          }
          assertThat(throttle(redis, key, 2, 3, 120))
              .as("3 admitted, carried over: full under the new rate, one T of 40 s to wait")
              .containsExactly(1L, 3L, 0L, 40L, 120L);
          CLOCK.advance(Duration.ofSeconds(40));
          assertThat(throttle(redis, key, 2, 3, 120).get(0)).isEqualTo(0L);
        });
  }

  /** Where redis-cell reads a number without its sign (or fails to parse), an error instead. */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void badNumbers_areErrors(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "bad";
          for (Object[] args :
              List.of(
                  new Object[] {key, -1, 30, 60},
                  new Object[] {key, 15, -30, 60},
                  new Object[] {key, 15, 30, -60},
                  new Object[] {key, 15, 30, 60, -1},
                  new Object[] {key, 15, 30, 60, "1.5"},
                  new Object[] {key, "x", 30, 60})) {
            assertThatThrownBy(() -> call(redis, "CL.THROTTLE", args))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessage("ERR value is not an integer or out of range");
          }
          assertThatThrownBy(() -> call(redis, "CL.THROTTLE", key, 15, 0, 60))
              .hasMessageStartingWith("ERR zero rates are not supported");
          assertThatThrownBy(() -> call(redis, "CL.THROTTLE", key, 15, 30, 0))
              .hasMessageStartingWith("ERR zero rates are not supported");
          assertThatThrownBy(() -> call(redis, "CL.THROTTLE", key, 15, 30))
              .hasMessage("ERR wrong number of arguments for 'cl.throttle' command");
          assertThatThrownBy(() -> call(redis, "CL.THROTTLE", key, 15, 30, 60, 1, 1))
              .hasMessage("ERR wrong number of arguments for 'cl.throttle' command");
          assertThat(throttle(redis, key, 15, 30, 60))
              .as("nothing was counted")
              .containsExactly(0L, 16L, 15L, -1L, 2L);
        });
  }
}
