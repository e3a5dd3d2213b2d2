package dev.sluice.node.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the decoder makes of bytes: commands, nothing, or a protocol error with Redis's text. */
class RespDecoderTest {
  private static final RespLimits LIMITS =
      new RespLimits(64, 4, 32, Duration.ofSeconds(10), 1024, 1024, 2048);

  /** Everything the decoder passes on for {@code chunks} arriving one after another. */
  private static List<Object> decode(String... chunks) {
    EmbeddedChannel channel = new EmbeddedChannel(new RespDecoder(LIMITS));
    List<Object> out = new ArrayList<>();
    for (String chunk : chunks) {
      channel.writeInbound(Unpooled.wrappedBuffer(chunk.getBytes(StandardCharsets.ISO_8859_1)));
      Object message;
      while ((message = channel.readInbound()) != null) {
        out.add(message);
      }
    }
    channel.finishAndReleaseAll();
    return out;
  }

  private static List<String> words(Object command) {
    RespCommand c = (RespCommand) command;
    List<String> words = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      words.add(new String(c.bytes(i), StandardCharsets.ISO_8859_1));
    }
    return words;
  }

  private static String error(Object message) {
    return ((RespProtocolException) message).reply();
  }

  @Test
  void array_ofBulkStrings_isOneCommand_evenSplitAcrossReads() {
    List<Object> out = decode("*2\r\n$4\r\nPI", "NG\r\n$2\r", "\nhi\r\n*1\r\n$4\r\nPING\r\n");

    assertThat(out).hasSize(2);
    assertThat(words(out.get(0))).containsExactly("PING", "hi");
    assertThat(words(out.get(1))).containsExactly("PING");
  }

  @Test
  void inline_splitsAsRedisDoes_quotesAndEscapes() {
    List<Object> out =
        decode("CL.THROTTLE  user123\t15\r\n", "SET \"a b\\x41\\n\" 'it\\'s'\n", "\r\n");

    assertThat(out).hasSize(2);
    assertThat(words(out.get(0))).containsExactly("CL.THROTTLE", "user123", "15");
    assertThat(words(out.get(1))).containsExactly("SET", "a bA\n", "it's");
  }

  @Test
  void emptyArraysAndBlankLines_areNothing() {
    assertThat(decode("*0\r\n*-1\r\n\r\n   \r\n")).isEmpty();
  }

  @Test
  void malformedFrames_areProtocolErrors_withRedissTexts_andNothingAfterIsRead() {
    assertThat(error(decode("*abc\r\n").get(0)))
        .isEqualTo("ERR Protocol error: invalid multibulk length");
    assertThat(error(decode("*1\r\n:1\r\n").get(0)))
        .isEqualTo("ERR Protocol error: expected '$', got ':'");
    assertThat(error(decode("*1\r\n$-5\r\n").get(0)))
        .isEqualTo("ERR Protocol error: invalid bulk length");
    assertThat(error(decode("*1\r\n$2\r\nabXY").get(0)))
        .isEqualTo("ERR Protocol error: bulk string not followed by CRLF");
    assertThat(error(decode("PING \"open\r\n").get(0)))
        .isEqualTo("ERR Protocol error: unbalanced quotes in request");

    List<Object> out = decode("*1\r\n$4\r\nPING\r\n*x\r\n*1\r\n$4\r\nPING\r\n");
    assertThat(out).hasSize(2);
    assertThat(words(out.get(0))).containsExactly("PING");
    assertThat(out.get(1)).isInstanceOf(RespProtocolException.class);
  }

  @Test
  void limits_bulkLengthArgumentsAndInlineLine_areRefused() {
    assertThat(error(decode("*1\r\n$65\r\n").get(0)))
        .isEqualTo("ERR Protocol error: invalid bulk length (at most 64 bytes per command)");
    assertThat(error(decode("*2\r\n$40\r\n" + "a".repeat(40) + "\r\n$40\r\n").get(0)))
        .as("the arguments together")
        .contains("invalid bulk length");
    assertThat(error(decode("*5\r\n").get(0)))
        .isEqualTo("ERR Protocol error: too many arguments (at most 4)");
    assertThat(error(decode("a b c d e\r\n").get(0)))
        .isEqualTo("ERR Protocol error: too many arguments (at most 4)");
    assertThat(error(decode("x".repeat(33)).get(0)))
        .isEqualTo("ERR Protocol error: too big inline request");
    assertThat(decode("x".repeat(32))).as("at the limit, still waiting for its end").isEmpty();
  }

  @Test
  void halfAFrame_isKeptUntilItCompletes() {
    EmbeddedChannel channel = new EmbeddedChannel(new RespDecoder(LIMITS));
    channel.writeInbound(
        Unpooled.wrappedBuffer("*1\r\n$4\r\nPI".getBytes(StandardCharsets.US_ASCII)));
    Object none = channel.readInbound();
    assertThat(none).isNull();
    channel.writeInbound(Unpooled.wrappedBuffer("NG\r\n".getBytes(StandardCharsets.US_ASCII)));
    assertThat(words(channel.readInbound())).containsExactly("PING");
    channel.finishAndReleaseAll();
  }
}
