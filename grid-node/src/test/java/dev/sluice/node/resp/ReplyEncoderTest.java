package dev.sluice.node.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes of each reply type in RESP2 and RESP3, pinned. */
class ReplyEncoderTest {
  private static String write(Reply reply, int protocol) {
    ByteBuf out = Unpooled.buffer();
    ReplyEncoder.write(reply, protocol, out);
    String text = out.toString(StandardCharsets.UTF_8);
    out.release();
    return text;
  }

  @Test
  void throttleReply_isFiveIntegers_inBothProtocols() {
    Reply reply = Reply.integers(0, 16, 15, -1, 2);
    String expected = "*5\r\n:0\r\n:16\r\n:15\r\n:-1\r\n:2\r\n";
    assertThat(write(reply, 2)).isEqualTo(expected);
    assertThat(write(reply, 3)).isEqualTo(expected);
    assertThat(write(Reply.integer(Long.MIN_VALUE), 2)).isEqualTo(":-9223372036854775808\r\n");
    assertThat(write(Reply.integer(1_000_000_007L), 2)).isEqualTo(":1000000007\r\n");
  }

  @Test
  void resp3Types_haveTheirResp2Forms() {
    Reply map = Reply.map("allowed", Reply.integer(1), "rule", Reply.NULL);
    assertThat(write(map, 3)).isEqualTo("%2\r\n$7\r\nallowed\r\n:1\r\n$4\r\nrule\r\n_\r\n");
    assertThat(write(map, 2)).isEqualTo("*4\r\n$7\r\nallowed\r\n:1\r\n$4\r\nrule\r\n$-1\r\n");
    Reply set = Reply.set(List.of(Reply.status("write")));
    assertThat(write(set, 3)).isEqualTo("~1\r\n+write\r\n");
    assertThat(write(set, 2)).isEqualTo("*1\r\n+write\r\n");
    assertThat(write(new Reply.Double(1.5), 3)).isEqualTo(",1.5\r\n");
    assertThat(write(new Reply.Double(1.5), 2)).isEqualTo("$3\r\n1.5\r\n");
    assertThat(write(new Reply.Verbatim("a:1"), 3)).isEqualTo("=7\r\ntxt:a:1\r\n");
    assertThat(write(new Reply.Verbatim("a:1"), 2)).isEqualTo("$3\r\na:1\r\n");
  }

  @Test
  void statusAndErrorLines_holdNoLineBreak() {
    assertThat(write(Reply.error("ERR a\r\nb"), 2)).isEqualTo("-ERR a  b\r\n");
    assertThat(write(Reply.bulk("é"), 2)).isEqualTo("$2\r\né\r\n");
  }
}
