package dev.sluice.node;

import static dev.sluice.node.RedisClients.bool;
import static dev.sluice.node.RedisClients.call;
import static dev.sluice.node.RedisClients.fields;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ManualTimeSource;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code SLUICE.*} through Lettuce against a real member with an admin token: REST's semantics and
 * fields (a map in RESP3, a flat field/value array in RESP2), admin commands only after {@code
 * AUTH}, errors naming what is wrong, and the port's metrics on the node's {@code /metrics}.
 */
class RespSluiceCommandsTest {
  static final String TOKEN = "resp-admin-" + UUID.randomUUID();
  @RegisterExtension static final RespNode NODE = new RespNode(Map.of("SLUICE_ADMIN_TOKEN", TOKEN));
  static final ManualTimeSource CLOCK = NODE.clock;

  /** Calls {@code SLUICE.<command>}: the rule (or ~) and the key come first, so key first here. */
  private static Map<String, Object> sluice(
      StatefulRedisConnection<String, String> redis, String command, Object... args) {
    return fields(call(redis, "SLUICE." + command, args));
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void check_underARule_answersRestsFields_deniesAtTheLimit(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, key) -> {
          Map<String, Object> first = sluice(redis, "CHECK", "login", key);
          assertThat(first)
              .containsKeys("allowed", "limit", "remaining", "resetAfterMs", "retryAfterMs")
              .containsEntry("rule", "login")
              .containsEntry("limit", 5L)
              .containsEntry("remaining", 4L);
          assertThat(bool(first.get("allowed"))).isTrue();
          assertThat(bool(first.get("shadow"))).isFalse();

          Map<String, Object> costly = sluice(redis, "CHECK", "login", key, "COST", 4);
          assertThat(costly).containsEntry("remaining", 0L);
          Map<String, Object> denied = sluice(redis, "CHECK", "login", key);
          assertThat(bool(denied.get("allowed"))).isFalse();
          assertThat((Long) denied.get("retryAfterMs")).isPositive();

          Map<String, Object> peek = sluice(redis, "PEEK", "login", key);
          assertThat(peek).containsEntry("remaining", 0L);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void check_inline_withMaxWait_andErrorsNamingTheProblem(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, key) -> {
          Map<String, Object> inline =
              sluice(redis, "CHECK", "~", key, "LIMIT", 10, "WINDOW", "1m", "ALGORITHM", "gcra");
          assertThat(inline).containsEntry("limit", 10L).containsEntry("remaining", 9L);
          assertThat(inline.get("rule")).isNull();

          for (int i = 0; i < 9; i++) {
            sluice(redis, "CHECK", "~", key, "LIMIT", 10, "WINDOW", "1m", "ALGORITHM", "gcra");
          }
          Map<String, Object> waited =
              sluice(
                  redis,
                  "CHECK",
                  "~",
                  key,
                  "LIMIT",
                  10,
                  "WINDOW",
                  "1m",
                  "ALGORITHM",
                  "gcra",
                  "MAXWAIT",
                  10_000);
          assertThat(bool(waited.get("allowed"))).isTrue();
          assertThat(waited).containsEntry("delayMs", 6_000L);

          assertThatThrownBy(() -> call(redis, "SLUICE.CHECK", "nope", key))
              .isInstanceOf(RedisCommandExecutionException.class)
              .hasMessageStartingWith("ERR unknown rule 'nope'");
          assertThatThrownBy(
                  () -> call(redis, "SLUICE.CHECK", "~", key, "LIMIT", 0, "WINDOW", "1m"))
              .hasMessageStartingWith("ERR limit: must be between 1 and");
          assertThatThrownBy(() -> call(redis, "SLUICE.CHECK", "login", key, "LIMIT", 3))
              .hasMessageStartingWith("ERR give either a rule name or ~");
          assertThatThrownBy(() -> call(redis, "SLUICE.CHECK", "login", key, "COST", 9))
              .hasMessageContaining(
                  "cost: asks for 9 permits but the rule 'login' never holds more than 5");
          // The check validates its wait itself, as a REST check's does.
          assertThatThrownBy(() -> call(redis, "SLUICE.CHECK", "login", key, "MAXWAIT", -1))
              .hasMessageStartingWith("ERR maxWait: must be between 0 and 1d");
          assertThatThrownBy(() -> call(redis, "SLUICE.CHECK", "login", key, "SPEED", 1))
              .hasMessageStartingWith("ERR syntax error: SLUICE.CHECK takes no option 'SPEED'");
        });
  }

  /** A pipelined batch with one bad check: each gets its own answer, nothing else fails. */
  @Test
  void batchWithOneBadCheck_answersEachOnItsOwn() {
    NODE.with(
        ProtocolVersion.RESP3,
        (redis, key) -> {
          redis.setAutoFlushCommands(false);
          var async = redis.async();
          var good =
              async.dispatch(
                  new RedisClients.Keyword("SLUICE.CHECK"),
                  new io.lettuce.core.output.ArrayOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                  new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                      .addKey("login")
                      .add(key));
          var bad =
              async.dispatch(
                  new RedisClients.Keyword("SLUICE.CHECK"),
                  new io.lettuce.core.output.ArrayOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                  new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                      .addKey("nope")
                      .add(key));
          redis.flushCommands();
          assertThat(fields(good.toCompletableFuture().join())).containsEntry("remaining", 4L);
          assertThatThrownBy(() -> bad.toCompletableFuture().join())
              .hasMessageContaining("unknown rule 'nope'");
          redis.setAutoFlushCommands(true);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void adminCommands_needAuth_rulesSetGetDel_resetAndCountedRelease(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, key) -> {
          String rule = "r" + Math.abs(key.hashCode());
          assertThatThrownBy(
                  () -> call(redis, "SLUICE.RULES", "SET", rule, "LIMIT", 3, "WINDOW", "1m"))
              .hasMessageStartingWith("NOPERM");
          assertThatThrownBy(() -> call(redis, "SLUICE.RESET", "login", key))
              .hasMessageStartingWith("NOPERM");
          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "login", key, "COST", 1))
              .hasMessageStartingWith("NOPERM");

          assertThat(redis.sync().auth(TOKEN)).isEqualTo("OK");
          Map<String, Object> set =
              fields(call(redis, "SLUICE.RULES", "SET", rule, "LIMIT", 3, "WINDOW", "1m"));
          assertThat(set).containsEntry("name", rule).containsEntry("limit", 3L);
          assertThat(fields(call(redis, "SLUICE.RULES", "GET", rule)))
              .containsEntry("window", "1m");
          assertThat(sluice(redis, "CHECK", rule, key)).containsEntry("remaining", 2L);
          assertThat(sluice(redis, "RELEASE", rule, key, "COST", 1)).containsEntry("remaining", 3L);
          sluice(redis, "CHECK", rule, key, "COST", 3);
          assertThat(call(redis, "SLUICE.RESET", rule, key)).containsExactly("OK");
          assertThat(sluice(redis, "PEEK", rule, key)).containsEntry("remaining", 3L);
          assertThat(call(redis, "SLUICE.RULES", "DEL", rule)).containsExactly(1L);
          assertThat(call(redis, "SLUICE.RULES", "DEL", rule)).containsExactly(0L);
        });
  }

  /**
   * A check's receipt gives its permits back from a connection that never sent AUTH, once; an
   * altered receipt and a second release free nothing. A bare count without AUTH is NOPERM on a
   * rule that wants proof (nothing freed), and taken on a rule with release: open.
   */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void receipt_givesBackWithoutAuth_once_bareCountOnlyAfterAuthOrOnAnOpenRule(
      ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, key) -> {
          Map<String, Object> taken = sluice(redis, "CHECK", "login", key, "COST", 2);
          assertThat(taken).containsEntry("remaining", 3L).containsKey("receipt");
          String receipt = (String) taken.get("receipt");
          assertThat(sluice(redis, "PEEK", "login", key)).doesNotContainKey("receipt");

          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "login", key, "COST", 2))
              .isInstanceOf(RedisCommandExecutionException.class)
              .hasMessageStartingWith("NOPERM release: rule 'login' gives permits back only")
              .hasMessageContaining("SLUICE.RELEASE RECEIPT <receipt>");
          assertThat(sluice(redis, "PEEK", "login", key)).containsEntry("remaining", 3L);

          String altered =
              receipt.substring(0, receipt.length() - 2) + (receipt.endsWith("AA") ? "BB" : "AA");
          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "RECEIPT", altered))
              .hasMessageStartingWith("ERR release not_issued_here:");
          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "RECEIPT", "not-a-receipt"))
              .hasMessageStartingWith("ERR receipt: is not a receipt a check answered");

          Map<String, Object> released = sluice(redis, "RELEASE", "RECEIPT", receipt);
          assertThat(released).containsEntry("rule", "login").containsEntry("remaining", 5L);
          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "RECEIPT", receipt))
              .hasMessageStartingWith("ERR release spent:");
          assertThat(sluice(redis, "PEEK", "login", key)).containsEntry("remaining", 5L);
          // The receipt stands alone: it names its key, rule and cost.
          assertThatThrownBy(() -> call(redis, "SLUICE.RELEASE", "RECEIPT", receipt, "1"))
              .hasMessageStartingWith("ERR wrong number of arguments for 'sluice.release'");

          // An inline policy's receipt names its policy: given back without repeating it.
          Map<String, Object> inline =
              sluice(redis, "CHECK", "~", key, "LIMIT", 4, "WINDOW", "1m", "ALGORITHM", "gcra");
          assertThat(sluice(redis, "RELEASE", "RECEIPT", inline.get("receipt")))
              .containsEntry("remaining", 4L);
          assertThatThrownBy(
                  () ->
                      call(
                          redis, "SLUICE.RELEASE", "~", key, "COST", 1, "LIMIT", 4, "WINDOW", "1m"))
              .hasMessageStartingWith("NOPERM release: an inline policy");

          sluice(redis, "CHECK", "reported", key, "COST", 4);
          assertThat(sluice(redis, "RELEASE", "reported", key, "COST", 3))
              .containsEntry("rule", "reported")
              .containsEntry("remaining", 9L);
        });
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void concurrencyPermit_andReservation_byTheirIds(ProtocolVersion protocol) {
    NODE.with(
        protocol,
        (redis, key) -> {
          Map<String, Object> held = sluice(redis, "CHECK", "db", key);
          assertThat(held).containsEntry("remaining", 1L).containsKey("permitId");
          Map<String, Object> released =
              sluice(redis, "RELEASE", "db", key, "PERMIT", held.get("permitId"));
          assertThat(released).containsEntry("remaining", 2L);

          Map<String, Object> reserved =
              sluice(redis, "RESERVE", "tokens", key, "COST", 40, "TTL", 60_000);
          assertThat(reserved).containsEntry("remaining", 60L).containsKey("reservationId");
          Map<String, Object> committed =
              fields(call(redis, "SLUICE.COMMIT", reserved.get("reservationId"), 10));
          assertThat(committed).containsEntry("remaining", 90L).containsEntry("rule", "tokens");
          assertThatThrownBy(() -> call(redis, "SLUICE.COMMIT", reserved.get("reservationId"), 10))
              .hasMessageStartingWith("ERR reservation committed:");
        });
  }

  /** The port's own metrics, beside the decisions', on the node's /metrics. */
  @Test
  void metrics_countCommandsByOutcome_andTimeThem() {
    NODE.with(
        ProtocolVersion.RESP2,
        (redis, key) -> {
          call(redis, "CL.THROTTLE", key, 0, 1, 60);
          call(redis, "CL.THROTTLE", key, 0, 1, 60);
        });
    String metrics = TestNodes.get(NODE.node().restPort(), "/metrics").body();
    assertThat(metrics)
        .containsPattern(
            "sluice_resp_commands_total\\{command=\"cl.throttle\",outcome=\"allowed\"}")
        .containsPattern("sluice_resp_commands_total\\{command=\"cl.throttle\",outcome=\"denied\"}")
        .contains("sluice_resp_command_seconds_count{command=\"cl.throttle\"}")
        .contains("sluice_resp_connections");
  }
}
