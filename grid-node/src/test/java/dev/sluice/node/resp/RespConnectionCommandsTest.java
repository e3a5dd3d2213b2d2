package dev.sluice.node.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection and server commands clients send on their own, with Redis's replies: RESP2 and
 * RESP3 as {@code HELLO} chooses, {@code AUTH} with the admin token, {@code CLIENT}, {@code
 * SELECT}, {@code QUIT}, {@code RESET}, {@code COMMAND} with key positions, {@code INFO}, {@code
 * CLUSTER}.
 */
class RespConnectionCommandsTest {
  /** A check under an inline policy of 2 a minute, the same in both protocols. */
  private static final String[] INLINE_CHECK = {
    "SLUICE.CHECK", "~", "k", "LIMIT", "2", "WINDOW", "1m", "ALGORITHM", "fixed_window"
  };

  private final LocalRespServer server = new LocalRespServer();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void pingEchoSelect_inlineAndArrays() {
    try (RespWire wire = server.connect()) {
      assertThat(wire.send("PING\r\n").read()).isEqualTo("+PONG");
      assertThat(wire.call("PING", "hi")).isEqualTo("hi");
      assertThat(wire.send("ECHO \"a b\"\r\n").read()).isEqualTo("a b");
      assertThat(wire.call("SELECT", "0")).isEqualTo("+OK");
      assertThat(wire.call("SELECT", "1")).isEqualTo("-ERR DB index is out of range");
      assertThat(wire.call("PING", "a", "b"))
          .isEqualTo("-ERR wrong number of arguments for 'ping' command");
    }
  }

  @Test
  void hello_switchesTheProtocol_repliesChangeType_resetGoesBack() {
    try (RespWire wire = server.connect()) {
      Object hello2 = wire.call("HELLO");
      assertThat(list(hello2)).contains("proto", 2L);
      assertThat(wire.call("CLIENT", "GETNAME")).isNull();

      Object hello3 = wire.call("HELLO", "3", "SETNAME", "app-1");
      assertThat(hello3).isInstanceOf(Map.class);
      assertThat(map(hello3))
          .containsEntry("proto", 3L)
          .containsEntry("version", ServerCommands.REDIS_VERSION)
          .containsEntry("mode", "cluster");
      assertThat(wire.call("CLIENT", "GETNAME")).isEqualTo("app-1");
      assertThat(wire.call(INLINE_CHECK))
          .isInstanceOf(Map.class)
          .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
          .containsEntry("allowed", 1L)
          .containsEntry("limit", 2L)
          .containsEntry("remaining", 1L);

      assertThat(wire.call("HELLO", "4")).isEqualTo("-NOPROTO unsupported protocol version");
      assertThat(wire.call("RESET")).isEqualTo("+RESET");
      assertThat(wire.call("CLIENT", "GETNAME")).isNull();
      List<Object> again = list(wire.call(INLINE_CHECK));
      assertThat(again.subList(0, 14))
          .as("RESP2 again: a flat array of field and value, booleans as integers")
          .isEqualTo(
              Arrays.asList(
                  "allowed",
                  1L,
                  "limit",
                  2L,
                  "remaining",
                  0L,
                  "resetAfterMs",
                  60000L,
                  "retryAfterMs",
                  0L,
                  "rule",
                  null,
                  "shadow",
                  0L));
      assertThat(again.subList(14, again.size()))
          .as("then the receipt of the permit it took")
          .hasSize(2)
          .first()
          .isEqualTo("receipt");
      assertThat(again.get(15)).asString().isNotBlank();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<Object, Object> map(Object reply) {
    return (Map<Object, Object>) reply;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object reply) {
    return (List<Object>) reply;
  }

  @Test
  void auth_takesTheAdminToken_asAloneOrAsDefaultsPassword() {
    try (RespWire wire = server.connect()) {
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo("-" + SluiceCommands.NOPERM);
      assertThat(wire.call("AUTH", "wrong"))
          .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.");
      assertThat(wire.call("AUTH", "someone", LocalRespServer.TOKEN))
          .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.");
      assertThat(wire.call("AUTH", LocalRespServer.TOKEN)).isEqualTo("+OK");
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo(0L);
      assertThat(wire.call("RESET")).isEqualTo("+RESET");
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo("-" + SluiceCommands.NOPERM);
      assertThat(wire.call("AUTH", "default", LocalRespServer.TOKEN)).isEqualTo("+OK");
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo(0L);
    }
    try (RespWire wire = server.connect()) {
      assertThat(wire.call("HELLO", "3", "AUTH", "default", "wrong"))
          .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.");
      assertThat(wire.call("HELLO", "3", "AUTH", "default", LocalRespServer.TOKEN))
          .isInstanceOf(Map.class);
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo(0L);
    }
  }

  @Test
  void auth_withoutAnAdminToken_isRedissErrorForNoPassword_andAdminCommandsAreOpen() {
    try (LocalRespServer open = new LocalRespServer(RespLimits.defaults(), null);
        RespWire wire = open.connect()) {
      assertThat(wire.call("AUTH", "x"))
          .asString()
          .startsWith("-ERR AUTH <password> called without any password configured");
      assertThat(wire.call("AUTH", "default", "anything")).isEqualTo("+OK");
      assertThat(wire.call("SLUICE.RULES", "DEL", "nope")).isEqualTo(0L);
    }
  }

  @Test
  void client_setnameGetnameSetinfoIdInfo() {
    try (RespWire wire = server.connect()) {
      assertThat(wire.call("CLIENT", "SETNAME", "has space"))
          .isEqualTo("-ERR Client names cannot contain spaces, newlines or special characters.");
      assertThat(wire.call("CLIENT", "SETNAME", "worker-7")).isEqualTo("+OK");
      assertThat(wire.call("CLIENT", "SETINFO", "LIB-NAME", "lettuce")).isEqualTo("+OK");
      assertThat(wire.call("CLIENT", "SETINFO", "LIB-VER", "7.7.0")).isEqualTo("+OK");
      long id = (Long) wire.call("CLIENT", "ID");
      assertThat((String) wire.call("CLIENT", "INFO"))
          .contains("id=" + id, "name=worker-7", "lib-name=lettuce", "lib-ver=7.7.0", "resp=2");
      assertThat(wire.call("CLIENT", "KILL"))
          .asString()
          .startsWith("-ERR unknown subcommand 'KILL'");
    }
  }

  @Test
  void quit_answersOkThenCloses_ignoringWhatFollows() {
    try (RespWire wire = server.connect()) {
      wire.send(RespWire.encode("QUIT") + RespWire.encode("CL.THROTTLE", "q", "0", "1", "60"));
      assertThat(wire.read()).isEqualTo("+OK");
      assertThat(wire.closedByServer()).isTrue();
    }
    try (RespWire wire = server.connect()) {
      assertThat(wire.call("CL.THROTTLE", "q", "0", "1", "60"))
          .as("the command after QUIT was never run")
          .isEqualTo(List.of(0L, 1L, 0L, -1L, 60L));
    }
  }

  /** COMMAND tells a cluster client where each command's key is. */
  @Test
  void command_infoCountDocs_withKeyPositions() {
    try (RespWire wire = server.connect()) {
      long count = (Long) wire.call("COMMAND", "COUNT");
      assertThat(list(wire.call("COMMAND"))).hasSize((int) count);
      List<Object> infos =
          list(wire.call("COMMAND", "INFO", "cl.throttle", "SLUICE.CHECK", "nope"));
      List<Object> throttle = list(infos.get(0));
      assertThat(throttle.subList(0, 2)).containsExactly("cl.throttle", -5L);
      assertThat(throttle.subList(3, 6))
          .as("first key, last key, step")
          .containsExactly(1L, 1L, 1L);
      List<Object> check = list(infos.get(1));
      assertThat(check.subList(3, 6)).containsExactly(2L, 2L, 1L);
      assertThat(infos.get(2)).isNull();
      List<Object> commit = list(list(wire.call("COMMAND", "INFO", "sluice.commit")).get(0));
      assertThat(commit.subList(3, 6)).as("no key: any node").containsExactly(0L, 0L, 0L);

      List<Object> docs = list(wire.call("COMMAND", "DOCS", "gcra"));
      assertThat(docs.get(0)).isEqualTo("gcra");
      assertThat(docs.get(1).toString()).contains("TOKENS", "rate_limit");
    }
  }

  @Test
  void info_hasTheFieldsClientsRead() {
    try (RespWire wire = server.connect()) {
      String info = (String) wire.call("INFO");
      assertThat(info)
          .contains(
              "redis_version:" + ServerCommands.REDIS_VERSION,
              "connected_clients:1",
              "master_repl_offset:0",
              "cluster_enabled:1",
              "tcp_port:" + server.port());
      assertThat((String) wire.call("INFO", "clients"))
          .startsWith("# Clients")
          .doesNotContain("# Server");
      assertThat(wire.call("CONFIG", "GET", "save")).isEqualTo(List.of());
    }
  }

  @Test
  void cluster_oneNodeHoldsEverySlot_keyslotIsRedissHash() {
    try (RespWire wire = server.connect()) {
      List<Object> slots = list(wire.call("CLUSTER", "SLOTS"));
      assertThat(slots).hasSize(1);
      assertThat(list(slots.get(0)).subList(0, 2)).containsExactly(0L, 16383L);
      assertThat((String) wire.call("CLUSTER", "NODES"))
          .contains("myself,master", "connected 0-16383");
      assertThat((String) wire.call("CLUSTER", "INFO")).contains("cluster_slots_assigned:16384");
      assertThat(wire.call("CLUSTER", "MYID")).isEqualTo("0".repeat(40));
      // Redis: CLUSTER KEYSLOT somekey = 11058; {user1000}.following = {user1000}.followers = 3443.
      assertThat(wire.call("CLUSTER", "KEYSLOT", "somekey")).isEqualTo(11058L);
      assertThat(wire.call("CLUSTER", "KEYSLOT", "{user1000}.following")).isEqualTo(3443L);
      assertThat(wire.call("CLUSTER", "KEYSLOT", "{user1000}.followers")).isEqualTo(3443L);
    }
  }
}
