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
 * Redis's {@code GCRA} vectors ({@code tests/unit/gcra.tcl} in the unstable branch) through
 * Lettuce, in RESP2 and RESP3, against a real member on a manual clock: its argument validation and
 * texts, bursts, tokens, recovery, full-burst-after and overflow errors. Its WRONGTYPE, persistence
 * and replication tests have no counterpart here (a Sluice key holds only a limiter's state).
 */
class RespGcraVectorsTest {
  @RegisterExtension static final RespNode NODE = new RespNode();
  static final ManualTimeSource CLOCK = NODE.clock;

  private static List<Object> gcra(StatefulRedisConnection<String, String> redis, Object... args) {
    return call(redis, "GCRA", args);
  }

  private static void refused(
      StatefulRedisConnection<String, String> redis, String expected, Object... args) {
    assertThatThrownBy(() -> call(redis, "GCRA", args))
        .isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining(expected);
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void argumentValidation(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "mykey";
          refused(redis, "wrong number of arguments", key);
          refused(redis, "wrong number of arguments", key, 10);
          refused(redis, "wrong number of arguments", key, 10, 5);
          refused(redis, "ERR value is out of range, must be positive", key, -1, 5, 10);
          refused(redis, "ERR value is out of range, must be positive", key, "notanumber", 5, 10);
          refused(
              redis,
              "ERR value is out of range, value must between 1 and 9223372036854775807",
              key,
              10,
              0,
              10);
          refused(redis, "out of range", key, 10, -1, 10);
          refused(redis, "ERR value is not an integer or out of range", key, 10, "notanumber", 10);
          refused(redis, "ERR period must be > 0 and < 1e12", key, 10, 5, 0);
          refused(redis, "ERR period must be > 0 and < 1e12", key, 10, 5, -1);
          refused(redis, "ERR value is not a valid float", key, 10, 5, "notanumber");
          refused(redis, "ERR Missing TOKENS value", key, 10, 5, 10, "TOKENS");
          refused(redis, "out of range", key, 10, 5, 10, "TOKENS", 0);
          refused(redis, "out of range", key, 10, 5, 10, "TOKENS", -1);
          refused(redis, "not an integer", key, 10, 5, 10, "TOKENS", "notanumber");
          refused(redis, "ERR syntax error", key, 10, 5, 10, "COUNT", 1);
          refused(redis, "wrong number of arguments", key, 10, 5, 10, "TOKENS", 1, 1);

          List<Object> first = gcra(redis, key, 10, 5, 60);
          assertThat(first).hasSize(5);
          assertThat(first.subList(0, 2)).containsExactly(0L, 11L);
          assertThat(gcra(redis, prefix + "explicit", 10, 5, 60, "TOKENS", 2).get(1))
              .isEqualTo(11L);
          assertThat(gcra(redis, prefix + "fractional", 10, 5, "0.5")).hasSize(5);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void burst_tokens_retryAfter_andFullBurstAfter(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          assertThat(gcra(redis, prefix + "first", 5, 10, 60).get(0)).isEqualTo(0L);

          // max_burst 5: six allowed, the seventh limited, retry after > 0.
          for (int i = 0; i < 6; i++) {
            assertThat(gcra(redis, prefix + "burst", 5, 1, 60)).element(0).isEqualTo(0L);
          }
          List<Object> seventh = gcra(redis, prefix + "burst", 5, 1, 60);
          assertThat(seventh.get(0)).isEqualTo(1L);
          assertThat((Long) seventh.get(3)).isPositive();

          assertThat(gcra(redis, prefix + "allowed", 5, 1, 60).get(3))
              .as("retry after is -1 when allowed")
              .isEqualTo(-1L);

          assertThat(gcra(redis, prefix + "one", 5, 1, 60).get(2)).isEqualTo(5L);
          assertThat(gcra(redis, prefix + "three", 5, 1, 60, "TOKENS", 3).get(2)).isEqualTo(3L);

          gcra(redis, prefix + "full", 5, 1, 60);
          gcra(redis, prefix + "full", 5, 1, 60);
          assertThat((Long) gcra(redis, prefix + "full", 5, 1, 60).get(4))
              .isGreaterThanOrEqualTo(179);
          gcra(redis, prefix + "full4", 5, 1, 60);
          assertThat((Long) gcra(redis, prefix + "full4", 5, 1, 60, "TOKENS", 4).get(4))
              .isGreaterThanOrEqualTo(299);

          assertThat(gcra(redis, prefix + "zero", 0, 1, 1).subList(0, 2)).containsExactly(0L, 1L);
          assertThat(gcra(redis, prefix + "zero", 0, 1, 1).get(0)).isEqualTo(1L);

          assertThat(gcra(redis, prefix + "micro", 1, 10_000, 1).get(0))
              .as("10,000 a second")
              .isEqualTo(0L);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void rateRecovers_andKeysAreIndependent(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "recover";
          gcra(redis, key, 1, 1, 1);
          gcra(redis, key, 1, 1, 1);
          assertThat(gcra(redis, key, 1, 1, 1).get(0)).isEqualTo(1L);
          CLOCK.advance(Duration.ofMillis(1100));
          assertThat(gcra(redis, key, 1, 1, 1).get(0)).isEqualTo(0L);

          for (int i = 0; i < 3; i++) {
            gcra(redis, prefix + "key1", 2, 1, 60);
          }
          assertThat(gcra(redis, prefix + "key1", 2, 1, 60).get(0)).isEqualTo(1L);
          assertThat(gcra(redis, prefix + "key2", 2, 1, 60).get(0)).isEqualTo(0L);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void overflow_isRefusedWithRedissText(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          refused(redis, "would cause an overflow", prefix + "o", 1, 1, 86400, "TOKENS", 200000000);
          refused(redis, "would cause an overflow", prefix + "o", 200000000, 1, 86400);
          refused(
              redis,
              "would cause an overflow",
              prefix + "o",
              1,
              1,
              2147483647,
              "TOKENS",
              2147483647);
        });
  }

  /** GCRA and CL.THROTTLE count on one state per key: the Redis port has one keyspace. */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void gcraAndClThrottle_shareTheKeysState(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, prefix) -> {
          String key = prefix + "shared";
          assertThat(gcra(redis, key, 15, 30, 60)).containsExactly(0L, 16L, 15L, -1L, 2L);
          assertThat(call(redis, "CL.THROTTLE", key, 15, 30, 60))
              .containsExactly(0L, 16L, 14L, -1L, 4L);
        });
  }
}
