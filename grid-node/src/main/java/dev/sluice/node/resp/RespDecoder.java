package dev.sluice.node.resp;

import dev.sluice.core.Durations;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Reads a connection's bytes into {@link RespCommand}s: RESP arrays of bulk strings (what every
 * client library sends) and inline commands (a line of words, as typed into telnet).
 *
 * <h2>What it refuses</h2>
 *
 * Input it cannot read in step is a {@link RespProtocolException}, passed on in its place among the
 * commands (those before it are answered first), after which every further byte is dropped and the
 * connection is closed. Redis's own texts where it has one:
 *
 * <pre>
 *   *abc\r\n                        Protocol error: invalid multibulk length
 *   *1\r\n:1\r\n                    Protocol error: expected '$', got ':'
 *   *1\r\n$-5\r\n                   Protocol error: invalid bulk length
 *   *1\r\n$600000\r\n               Protocol error: invalid bulk length (at most 524288 bytes)
 *   *2000\r\n                       Protocol error: too many arguments (at most 1024)
 *   PING "unterminated\r\n          Protocol error: unbalanced quotes in request
 *   a line of 70,000 bytes          Protocol error: too big inline request
 *   half a frame, then silence      Protocol error: incomplete command, nothing more came for 10s
 * </pre>
 *
 * A command's arguments together are held to {@link RespLimits#maxBulkBytes()} too, so one frame
 * never buffers more than that however many arguments it announces. A blank inline line, {@code *0}
 * and {@code *-1} are nothing, as in Redis.
 *
 * <h2>Partial frames</h2>
 *
 * A frame that is not complete stays in the buffer and is parsed again from its start when more
 * bytes come (a frame is small: a header line per argument is read twice at most per read). One
 * that stays incomplete for {@link RespLimits#incompleteFrameTimeout()} since it began is refused:
 * a client that sends half a command and falls silent (or trickles it) does not hold a buffer
 * forever. An idle connection between commands is no partial frame, and is never timed out.
 */
final class RespDecoder extends ByteToMessageDecoder {
  /** Parsed, but nothing to do: a blank line, {@code *0}, {@code *-1}. */
  private static final Object NOTHING = new Object();

  /** The longest header line ({@code *<count>} or {@code $<length>}). */
  private static final int MAX_HEADER = 32;

  private final RespLimits limits;
  private boolean failed;
  private long partialSinceNanos;
  private @Nullable ScheduledFuture<?> staleCheck;

  RespDecoder(RespLimits limits) {
    this.limits = limits;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    boolean progressed = false;
    while (in.isReadable()) {
      int start = in.readerIndex();
      Object frame;
      try {
        frame = in.getByte(start) == '*' ? array(in) : inline(in);
      } catch (RespProtocolException e) {
        failed = true;
        partialSinceNanos = 0;
        in.skipBytes(in.readableBytes());
        out.add(e);
        return;
      }
      if (frame == null) {
        in.readerIndex(start);
        break;
      }
      progressed = true;
      if (frame != NOTHING) {
        out.add(frame);
      }
    }
    watchIncomplete(ctx, in.isReadable(), progressed);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    ScheduledFuture<?> check = staleCheck;
    if (check != null) {
      check.cancel(false);
    }
  }

  // ---------------------------------------------------------------- RESP arrays

  /** {@code *<n>\r\n} then n {@code $<len>\r\n<bytes>\r\n}; null while incomplete. */
  private @Nullable Object array(ByteBuf in) {
    int end = in.writerIndex();
    int at = in.readerIndex();
    int lineEnd = lineEnd(in, at + 1, end);
    if (lineEnd < 0) {
      return null;
    }
    long count = number(in, at + 1, lineEnd, "invalid multibulk length");
    at = lineEnd + 2;
    if (count <= 0) {
      in.readerIndex(at);
      return NOTHING;
    }
    if (count > limits.maxArguments()) {
      throw new RespProtocolException(
          "too_big", "too many arguments (at most " + limits.maxArguments() + ")");
    }
    byte[][] args = new byte[(int) count][];
    long total = 0;
    for (int i = 0; i < count; i++) {
      if (at >= end) {
        return null;
      }
      byte type = in.getByte(at);
      if (type != '$') {
        throw new RespProtocolException("malformed", "expected '$', got '" + printable(type) + "'");
      }
      lineEnd = lineEnd(in, at + 1, end);
      if (lineEnd < 0) {
        return null;
      }
      long length = number(in, at + 1, lineEnd, "invalid bulk length");
      if (length < 0) {
        throw new RespProtocolException("malformed", "invalid bulk length");
      }
      total += length;
      if (length > limits.maxBulkBytes() || total > limits.maxBulkBytes()) {
        throw new RespProtocolException(
            "too_big",
            "invalid bulk length (at most " + limits.maxBulkBytes() + " bytes per command)");
      }
      int data = lineEnd + 2;
      if (end - data < length + 2) {
        return null;
      }
      int after = data + (int) length;
      if (in.getByte(after) != '\r' || in.getByte(after + 1) != '\n') {
        throw new RespProtocolException("malformed", "bulk string not followed by CRLF");
      }
      byte[] arg = new byte[(int) length];
      in.getBytes(data, arg);
      args[i] = arg;
      at = after + 2;
    }
    in.readerIndex(at);
    return new RespCommand(args);
  }

  /**
   * The index of the {@code \r} that ends the header line starting at {@code from}, or -1 if it has
   * not all arrived.
   */
  private static int lineEnd(ByteBuf in, int from, int end) {
    int limit = Math.min(end, from + MAX_HEADER);
    int newline = in.indexOf(from, limit, (byte) '\n');
    if (newline < 0) {
      if (end - from >= MAX_HEADER) {
        throw new RespProtocolException("malformed", "header line too long");
      }
      return -1;
    }
    if (newline == from || in.getByte(newline - 1) != '\r') {
      throw new RespProtocolException("malformed", "expected CRLF after a header");
    }
    return newline - 1;
  }

  /** The decimal number in {@code [from, to)}, as Redis reads it (no sign but '-', no spaces). */
  private static long number(ByteBuf in, int from, int to, String invalid) {
    if (from == to) {
      throw new RespProtocolException("malformed", invalid);
    }
    boolean negative = in.getByte(from) == '-';
    int i = negative ? from + 1 : from;
    if (i == to || to - i > 18) {
      throw new RespProtocolException("malformed", invalid);
    }
    long value = 0;
    for (; i < to; i++) {
      byte b = in.getByte(i);
      if (b < '0' || b > '9') {
        throw new RespProtocolException("malformed", invalid);
      }
      value = value * 10 + (b - '0');
    }
    return negative ? -value : value;
  }

  private static String printable(byte b) {
    return b >= 0x20 && b < 0x7f ? Character.toString((char) b) : String.format("\\x%02x", b);
  }

  // ---------------------------------------------------------------- inline commands

  /** A line of words; null while its end has not arrived. */
  private @Nullable Object inline(ByteBuf in) {
    int start = in.readerIndex();
    int end = in.writerIndex();
    int newline =
        in.indexOf(start, Math.min(end, start + limits.maxInlineBytes() + 1), (byte) '\n');
    if (newline < 0) {
      if (end - start > limits.maxInlineBytes()) {
        throw new RespProtocolException("too_big", "too big inline request");
      }
      return null;
    }
    int lineEnd = newline > start && in.getByte(newline - 1) == '\r' ? newline - 1 : newline;
    byte[] line = new byte[lineEnd - start];
    in.getBytes(start, line);
    in.readerIndex(newline + 1);
    List<byte[]> words = split(line);
    if (words.isEmpty()) {
      return NOTHING;
    }
    if (words.size() > limits.maxArguments()) {
      throw new RespProtocolException(
          "too_big", "too many arguments (at most " + limits.maxArguments() + ")");
    }
    return new RespCommand(words.toArray(new byte[0][]));
  }

  /**
   * Splits an inline line into words as Redis does ({@code sdssplitargs}): blanks separate words;
   * {@code "double quotes"} take {@code \n \r \t \b \a \\ \" \xHH}; {@code 'single quotes'} take
   * {@code \'}; a closing quote must end the word.
   */
  static List<byte[]> split(byte[] line) {
    List<byte[]> words = new ArrayList<>();
    int p = 0;
    int n = line.length;
    while (true) {
      while (p < n && isSpace(line[p])) {
        p++;
      }
      if (p >= n) {
        return words;
      }
      ByteArrayOutputStream word = new ByteArrayOutputStream();
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      while (!done) {
        if (inDouble) {
          if (p >= n) {
            throw unbalanced();
          }
          byte c = line[p];
          if (c == '\\'
              && p + 3 < n
              && line[p + 1] == 'x'
              && isHex(line[p + 2])
              && isHex(line[p + 3])) {
            word.write(Character.digit(line[p + 2], 16) * 16 + Character.digit(line[p + 3], 16));
            p += 3;
          } else if (c == '\\' && p + 1 < n) {
            p++;
            word.write(
                switch (line[p]) {
                  case 'n' -> '\n';
                  case 'r' -> '\r';
                  case 't' -> '\t';
                  case 'b' -> '\b';
                  case 'a' -> 7;
                  default -> line[p];
                });
          } else if (c == '"') {
            if (p + 1 < n && !isSpace(line[p + 1])) {
              throw unbalanced();
            }
            done = true;
          } else {
            word.write(c);
          }
        } else if (inSingle) {
          if (p >= n) {
            throw unbalanced();
          }
          byte c = line[p];
          if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
            p++;
            word.write('\'');
          } else if (c == '\'') {
            if (p + 1 < n && !isSpace(line[p + 1])) {
              throw unbalanced();
            }
            done = true;
          } else {
            word.write(c);
          }
        } else if (p >= n || isSpace(line[p]) || line[p] == 0) {
          done = true;
        } else if (line[p] == '"') {
          inDouble = true;
        } else if (line[p] == '\'') {
          inSingle = true;
        } else {
          word.write(line[p]);
        }
        if (p < n) {
          p++;
        }
      }
      words.add(word.toByteArray());
    }
  }

  private static RespProtocolException unbalanced() {
    return new RespProtocolException("malformed", "unbalanced quotes in request");
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0b || b == '\f';
  }

  private static boolean isHex(byte b) {
    return Character.digit(b, 16) >= 0;
  }

  // ---------------------------------------------------------------- half-sent frames

  /**
   * Keeps the clock of the frame left incomplete: it starts when a read leaves a partial frame
   * behind a complete one (or behind nothing), so each frame gets the whole timeout from when it
   * began, and a trickled one is refused all the same.
   */
  private void watchIncomplete(ChannelHandlerContext ctx, boolean partial, boolean progressed) {
    if (!partial) {
      partialSinceNanos = 0;
      return;
    }
    if (partialSinceNanos == 0 || progressed) {
      partialSinceNanos = System.nanoTime();
    }
    if (staleCheck == null) {
      scheduleCheck(ctx, limits.incompleteFrameTimeout().toNanos());
    }
  }

  private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
    staleCheck = ctx.executor().schedule(() -> checkStale(ctx), delayNanos, TimeUnit.NANOSECONDS);
  }

  private void checkStale(ChannelHandlerContext ctx) {
    staleCheck = null;
    if (failed || partialSinceNanos == 0 || !ctx.channel().isActive()) {
      return;
    }
    long timeout = limits.incompleteFrameTimeout().toNanos();
    long waited = System.nanoTime() - partialSinceNanos;
    if (waited < timeout) {
      scheduleCheck(ctx, timeout - waited);
      return;
    }
    failed = true;
    partialSinceNanos = 0;
    ctx.fireChannelRead(
        new RespProtocolException(
            "incomplete",
            "incomplete command, nothing more came for "
                + Durations.format(limits.incompleteFrameTimeout())));
    ctx.fireChannelReadComplete();
  }
}
