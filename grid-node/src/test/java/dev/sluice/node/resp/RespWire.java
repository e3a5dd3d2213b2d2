package dev.sluice.node.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A raw RESP connection for tests that need the bytes: what a client library would never send
 * (malformed frames, half a frame) and what it would hide (RESP2 versus RESP3 types, the order of
 * pipelined replies). Replies are read into plain values: a status as {@code "+OK"}, an error as
 * {@code "-ERR ..."}, an integer as a {@code Long}, a bulk string as a {@code String}, null as
 * {@code null}, an array or set as a {@code List}, a map as a {@code LinkedHashMap}, a boolean as a
 * {@code Boolean}.
 */
public final class RespWire implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  public RespWire(int port) {
    this(port, 10_000);
  }

  public RespWire(int port, int readTimeoutMillis) {
    try {
      socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(readTimeoutMillis);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends {@code raw} as it is (CRLFs included by the caller). */
  public RespWire send(String raw) {
    return send(raw.getBytes(StandardCharsets.UTF_8));
  }

  public RespWire send(byte[] raw) {
    try {
      out.write(raw);
      out.flush();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends one command as a RESP array of bulk strings. */
  public RespWire command(String... args) {
    return send(encode(args));
  }

  /** {@code args} as a RESP array of bulk strings. */
  public static String encode(String... args) {
    StringBuilder frame = new StringBuilder("*").append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      frame.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return frame.toString();
  }

  /** Sends one command and reads its reply. */
  public Object call(String... args) {
    return command(args).read();
  }

  /** Reads one reply. */
  public Object read() {
    try {
      return value();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the server has closed the connection: every byte it sent has been read and the stream
   * ends (within the read timeout).
   */
  public boolean closedByServer() {
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /** Whether nothing arrives for {@code wait} (the connection stays open and silent). */
  public boolean silentFor(java.time.Duration wait) {
    try {
      int timeout = socket.getSoTimeout();
      socket.setSoTimeout((int) wait.toMillis());
      try {
        in.mark(1);
        int b = in.read();
        in.reset();
        return false;
      } finally {
        socket.setSoTimeout(timeout);
      }
    } catch (SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public Socket socket() {
    return socket;
  }

  private Object value() throws IOException {
    int type = in.read();
    if (type == -1) {
      throw new IOException("the server closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return "+" + line;
      case '-':
        return "-" + line;
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          return length < 0 ? null : bulk(length);
        }
      case '=':
        return bulk(Integer.parseInt(line)).substring(4);
      case '_':
        return null;
      case '#':
        return line.equals("t");
      case ',':
        return Double.parseDouble(line.replace("inf", "Infinity"));
      case '*':
      case '~':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            items.add(value());
          }
          return items;
        }
      case '%':
        {
          int count = Integer.parseInt(line);
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = 0; i < count; i++) {
            map.put(value(), value());
          }
          return map;
        }
      default:
        throw new IOException("unexpected reply type '" + (char) type + "' then " + line);
    }
  }

  private String bulk(int length) throws IOException {
    byte[] bytes = in.readNBytes(length);
    if (in.read() != '\r' || in.read() != '\n') {
      throw new IOException("bulk string not followed by CRLF");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\r') {
      if (b == -1) {
        throw new IOException("the server closed the connection mid-line");
      }
      line.write(b);
    }
    if (in.read() != '\n') {
      throw new IOException("CR not followed by LF");
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }
}
