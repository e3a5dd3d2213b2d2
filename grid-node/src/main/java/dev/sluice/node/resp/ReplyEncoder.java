package dev.sluice.node.resp;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes a {@link Reply} as RESP2 or RESP3, as the connection asked with {@code HELLO}.
 *
 * <pre>
 *   reply            RESP3                 RESP2
 *   map {a: 1}       %1 $1 a :1            *2 $1 a :1        (HGETALL's shape)
 *   set [x]          ~1 $1 x               *1 $1 x
 *   1.5              ,1.5                  $3 1.5
 *   null             _                     $-1
 *   verbatim "v"     =5 txt:v              $1 v
 * </pre>
 *
 * Status and error lines cannot hold CR or LF: any is written as a space, as Redis does.
 */
final class ReplyEncoder {
  private static final byte[] CRLF = {'\r', '\n'};

  private ReplyEncoder() {}

  static void write(Reply reply, int protocol, ByteBuf out) {
    if (reply instanceof Reply.Int integer) {
      number(out, ':', integer.value());
    } else if (reply instanceof Reply.Array array) {
      items(out, '*', array.items(), protocol);
    } else if (reply instanceof Reply.Bulk bulk) {
      bulk(out, bulk.bytes());
    } else if (reply instanceof Reply.Status status) {
      line(out, '+', status.text());
    } else if (reply instanceof Reply.Error error) {
      line(out, '-', error.text());
    } else if (reply instanceof Reply.Null) {
      if (protocol >= 3) {
        out.writeByte('_').writeBytes(CRLF);
      } else {
        out.writeByte('$').writeByte('-').writeByte('1').writeBytes(CRLF);
      }
    } else if (reply instanceof Reply.Double number) {
      String text = doubleText(number.value());
      if (protocol >= 3) {
        line(out, ',', text);
      } else {
        bulk(out, text.getBytes(StandardCharsets.US_ASCII));
      }
    } else if (reply instanceof Reply.Set set) {
      items(out, protocol >= 3 ? '~' : '*', set.items(), protocol);
    } else if (reply instanceof Reply.Map map) {
      List<Reply> items = map.keysAndValues();
      if (protocol >= 3) {
        number(out, '%', items.size() / 2);
        for (Reply item : items) {
          write(item, protocol, out);
        }
      } else {
        items(out, '*', items, protocol);
      }
    } else if (reply instanceof Reply.Verbatim verbatim) {
      byte[] text = verbatim.text().getBytes(StandardCharsets.UTF_8);
      if (protocol >= 3) {
        number(out, '=', text.length + 4);
        out.writeBytes(new byte[] {'t', 'x', 't', ':'}).writeBytes(text).writeBytes(CRLF);
      } else {
        bulk(out, text);
      }
    } else {
      throw new IllegalArgumentException("unknown reply " + reply);
    }
  }

  private static void items(ByteBuf out, char type, List<Reply> items, int protocol) {
    number(out, type, items.size());
    for (Reply item : items) {
      write(item, protocol, out);
    }
  }

  private static void bulk(ByteBuf out, byte[] bytes) {
    number(out, '$', bytes.length);
    out.writeBytes(bytes).writeBytes(CRLF);
  }

  private static void line(ByteBuf out, char type, String text) {
    out.writeByte(type);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n') {
        out.writeByte(' ');
      } else if (c < 0x80) {
        out.writeByte(c);
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    out.writeBytes(CRLF);
  }

  /** {@code <type><decimal>\r\n}, without building a String. */
  private static void number(ByteBuf out, char type, long value) {
    out.writeByte(type);
    if (value == Long.MIN_VALUE) {
      out.writeBytes(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
    } else {
      if (value < 0) {
        out.writeByte('-');
        value = -value;
      }
      long divisor = 1;
      while (divisor <= value / 10) {
        divisor *= 10;
      }
      while (divisor > 0) {
        out.writeByte((int) ('0' + value / divisor));
        value %= divisor;
        divisor /= 10;
      }
    }
    out.writeBytes(CRLF);
  }

  /** A double as Redis writes one: {@code inf}, {@code -inf}, {@code nan}, else shortest text. */
  private static String doubleText(double value) {
    if (Double.isNaN(value)) {
      return "nan";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "inf" : "-inf";
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return Double.toString(value);
  }
}
