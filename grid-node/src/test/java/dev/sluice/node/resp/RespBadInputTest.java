package dev.sluice.node.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input on a real socket: each gets a clear error, a connection that cannot be read in step is
 * closed, nothing is counted by mistake (the key's state and the command metrics are unchanged),
 * and other connections go on as if nothing happened.
 */
class RespBadInputTest {
  private final LocalRespServer server =
      new LocalRespServer(
          RespLimits.defaults().withIncompleteFrameTimeout(Duration.ofMillis(300)), null);

  @AfterEach
  void stop() {
    server.close();
  }

  /** The key's remaining permits under CL.THROTTLE's policy of burst 4, 5 per minute. */
  private long remaining(String key) {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.GCRA)
            .limit(5)
            .window(Duration.ofMinutes(1))
            .burst(4)
            .leases(Policy.Leases.OFF)
            .build();
    return server
        .limiter
        .peek(PolicyRef.inlineUnder(GcraPolicies.STATE_NAME, policy), key)
        .remaining();
  }

  @Test
  void malformedFrame_answersProtocolError_closes_afterAnsweringWhatCameBefore() {
    try (RespWire bad = server.connect();
        RespWire good = server.connect()) {
      bad.send(
          RespWire.encode("CL.THROTTLE", "k1", "4", "5", "60")
              + "*x\r\n"
              + RespWire.encode("CL.THROTTLE", "k1", "4", "5", "60"));

      assertThat(bad.read()).isEqualTo(List.of(0L, 5L, 4L, -1L, 12L));
      assertThat(bad.read()).isEqualTo("-ERR Protocol error: invalid multibulk length");
      assertThat(bad.closedByServer()).isTrue();
      assertThat(remaining("k1")).as("the command after the bad frame never ran").isEqualTo(4);

      assertThat(good.call("CL.THROTTLE", "k1", "4", "5", "60"))
          .isEqualTo(List.of(0L, 5L, 3L, -1L, 24L));
    }
    assertThat(server.answered("cl.throttle", "allowed")).isEqualTo(2);
    assertThat(
            server
                .registry
                .find("sluice.resp.protocol.errors")
                .tag("reason", "malformed")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void bulkAboveTheCap_tooManyArguments_areRefusedAndClosed_countingNothing() {
    try (RespWire big = server.connect();
        RespWire many = server.connect()) {
      big.send("*2\r\n$11\r\nCL.THROTTLE\r\n$600000\r\n");
      assertThat(big.read())
          .isEqualTo("-ERR Protocol error: invalid bulk length (at most 524288 bytes per command)");
      assertThat(big.closedByServer()).isTrue();

      many.send("*2000\r\n");
      assertThat(many.read()).isEqualTo("-ERR Protocol error: too many arguments (at most 1024)");
      assertThat(many.closedByServer()).isTrue();
    }
    assertThat(server.registry.find("sluice.resp.commands").counters()).isEmpty();
  }

  @Test
  void halfSentFrameThenSilence_isRefusedAfterTheTimeout_andAnIdleConnectionIsNot() {
    try (RespWire half = server.connect();
        RespWire idle = server.connect()) {
      half.send("*5\r\n$11\r\nCL.THROTTLE\r\n$2\r\nk2\r\n$1\r\n4\r\n");

      assertThat(half.read())
          .isEqualTo("-ERR Protocol error: incomplete command, nothing more came for 300ms");
      assertThat(half.closedByServer()).isTrue();
      assertThat(remaining("k2")).isEqualTo(5);

      assertThat(idle.call("PING")).as("idle for as long, and still served").isEqualTo("+PONG");
    }
  }

  @Test
  void unknownCommandsAndBadArguments_areErrors_theConnectionGoesOn() {
    try (RespWire wire = server.connect()) {
      assertThat(wire.call("GET", "k"))
          .isEqualTo("-ERR unknown command 'GET', with args beginning with: 'k' ");
      assertThat(wire.call("CL.THROTTLE", "k3", "4", "5"))
          .isEqualTo("-ERR wrong number of arguments for 'cl.throttle' command");
      assertThat(wire.call("CL.THROTTLE", "k3", "-1", "5", "60"))
          .isEqualTo("-ERR value is not an integer or out of range");
      assertThat(wire.call("CL.THROTTLE", "k3", "4", "5", "60", "1.5"))
          .isEqualTo("-ERR value is not an integer or out of range");
      assertThat(wire.call("CL.THROTTLE", "k3", "4", "0", "60"))
          .asString()
          .startsWith("-ERR zero rates are not supported");
      assertThat(wire.call("CL.THROTTLE", "k3", "4", "5", "4000000"))
          .asString()
          .startsWith("-ERR period: must be between 1ms and 30d");
      assertThat(wire.call("CL.THROTTLE", "", "4", "5", "60")).asString().startsWith("-ERR key:");
      assertThat(wire.send(new byte[0]).call("PING")).isEqualTo("+PONG");
    }
    assertThat(remaining("k3")).isEqualTo(5);
    assertThat(server.answered("cl.throttle", "error")).isEqualTo(6);
    assertThat(server.answered("unknown", "error")).isEqualTo(1);
  }

  @Test
  void invalidUtf8Key_isRefused() {
    try (RespWire wire = server.connect()) {
      byte[] frame =
          ("*5\r\n$11\r\nCL.THROTTLE\r\n$2\r\n\u00ff\u00fe\r\n$1\r\n4\r\n$1\r\n5\r\n$2\r\n60\r\n")
              .getBytes(StandardCharsets.ISO_8859_1);
      assertThat(wire.send(frame).read()).isEqualTo("-ERR key must be UTF-8 text");
    }
  }

  /**
   * A client that pipelines and never reads: the node stops reading it once its output is at the
   * water mark, so the client's writes stall in its socket; what the node holds for it stays
   * bounded; another connection is served throughout and sees it in INFO.
   */
  @Test
  void clientThatNeverReads_isNoLongerRead_itsOutputStaysBounded_othersAreServed()
      throws Exception {
    try (RespWire deaf = server.connect();
        RespWire other = server.connect()) {
      byte[] ping = RespWire.encode("PING", "x".repeat(100)).getBytes(StandardCharsets.US_ASCII);
      byte[] burst = new byte[ping.length * 1000];
      for (int i = 0; i < 1000; i++) {
        System.arraycopy(ping, 0, burst, i * ping.length, ping.length);
      }
      OutputStream out = deaf.socket().getOutputStream();
      AtomicLong written = new AtomicLong();
      Thread writer =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 2_000; i++) { // at most 220 MB, if nothing ever stalled
                    out.write(burst);
                    written.addAndGet(burst.length);
                  }
                } catch (IOException e) {
                  // closed at the end of the test
                }
              });
      writer.setDaemon(true);
      writer.start();
      boolean stalled = false;
      long maxOutput = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!stalled && System.nanoTime() < deadline) {
        String info = (String) other.call("INFO", "clients");
        maxOutput = Math.max(maxOutput, field(info, "client_recent_max_output_buffer"));
        if (field(info, "clients_not_read_for_output") == 1) {
          long before = written.get();
          Thread.sleep(1_000); // watching the client's writes, not moving limiter time
          stalled = written.get() == before;
        } else {
          Thread.sleep(100);
        }
      }

      assertThat(stalled).as("the node stopped reading it, so its writes stalled").isTrue();
      assertThat(writer.isAlive()).isTrue();
      assertThat(maxOutput)
          .as("output held for it: the water mark plus 1,024 replies and one read's")
          .isLessThan(RespLimits.defaults().outputHighWaterMark() + 256 * 1024);
      assertThat(other.call("CL.THROTTLE", "served", "4", "5", "60"))
          .isEqualTo(List.of(0L, 5L, 4L, -1L, 12L));
      deaf.socket().close();
      writer.join(5_000);
    }
  }

  private static long field(String info, String name) {
    for (String line : info.split("\r\n")) {
      if (line.startsWith(name + ":")) {
        return Long.parseLong(line.substring(name.length() + 1));
      }
    }
    throw new AssertionError(name + " not in INFO: " + info);
  }

  /** Replies to pipelined commands come in order, those ready together in one write. */
  @Test
  void pipelinedCommands_areAnsweredInOrder_inOneWrite() {
    try (RespWire wire = server.connect()) {
      StringBuilder pipeline = new StringBuilder();
      for (int i = 0; i < 6; i++) {
        pipeline.append(RespWire.encode("CL.THROTTLE", "p", "4", "5", "60"));
        pipeline.append(RespWire.encode("ECHO", "e" + i));
      }
      wire.send(pipeline.toString());
      for (int i = 0; i < 6; i++) {
        List<?> throttle = (List<?>) wire.read();
        assertThat(throttle.get(0)).as("call %d", i).isEqualTo(i < 5 ? 0L : 1L);
        assertThat(throttle.get(2)).isEqualTo((long) Math.max(0, 4 - i));
        assertThat(wire.read()).isEqualTo("e" + i);
      }
      assertThat(wire.silentFor(Duration.ofMillis(300))).as("nothing more").isTrue();
    }
  }
}
