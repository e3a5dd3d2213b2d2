package dev.sluice.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.1 exchange over a plain socket to 127.0.0.1, for requests that {@code
 * java.net.http.HttpClient} refuses to send (bad percent-encoding, {@code HTTP/9.9}, garbage
 * request lines, oversize headers) and for bodies the server may stop reading halfway.
 *
 * <p>The request is written in one go; if the server closes the connection while it is still being
 * written (it answered early, e.g. 413 or 431, and stopped reading) the write error is swallowed,
 * because the answer it sent before closing is still in our receive buffer. The answer is then read
 * exactly as far as its framing says ({@code Content-Length}, chunked, or until the server closes),
 * so a reset that follows the answer cannot hide it.
 */
final class RawHttp {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int TIMEOUT_MILLIS = 10_000;

  private RawHttp() {}

  /**
   * Sends {@code request} as ISO-8859-1 bytes (so {@code \u00ff} is one byte) and reads one answer.
   */
  static Response exchange(int port, String request) {
    return exchange(port, request.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Sends {@code request} verbatim and reads one answer. */
  static Response exchange(int port, byte[] request) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(TIMEOUT_MILLIS);
      boolean writtenWhole = write(socket.getOutputStream(), request);
      boolean head =
          request.length > 5
              && new String(request, 0, 5, StandardCharsets.US_ASCII).equals("HEAD ");
      Response response = read(socket.getInputStream(), head);
      return new Response(response.status, response.headers, response.body, writtenWhole);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads an answer already captured whole, e.g. everything a socket gave until it closed. */
  static Response parse(byte[] answer) {
    try {
      return read(new ByteArrayInputStream(answer), false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes in 8 KiB pieces; false when the server closed before taking everything. */
  private static boolean write(OutputStream out, byte[] request) {
    try {
      for (int from = 0; from < request.length; from += 8192) {
        out.write(request, from, Math.min(8192, request.length - from));
      }
      out.flush();
      return true;
    } catch (IOException serverStoppedReading) {
      return false;
    }
  }

  private static Response read(InputStream in, boolean answersHead) throws IOException {
    String head = readHead(in);
    String[] lines = head.split("\r\n");
    if (lines.length == 0 || !lines[0].startsWith("HTTP/1.") || lines[0].length() < 12) {
      throw new IOException("not an HTTP answer: " + head);
    }
    int status = Integer.parseInt(lines[0].substring(9, 12));
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
    }
    byte[] body;
    String length = headers.get("content-length");
    if (answersHead) {
      body = new byte[0]; // an answer to HEAD has headers only, whatever Content-Length says
    } else if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = readChunked(in);
    } else {
      body = in.readAllBytes();
    }
    return new Response(status, headers, new String(body, StandardCharsets.UTF_8), true);
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < end.length) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head.size() + " bytes of the answer's head");
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static byte[] readChunked(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in);
      int semicolon = sizeLine.indexOf(';');
      int size =
          Integer.parseInt(
              (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        readLine(in); // the empty line after the last chunk (no trailers are expected)
        return body.toByteArray();
      }
      body.writeBytes(in.readNBytes(size));
      readLine(in);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("closed inside a chunked body");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * An answer read off the wire.
   *
   * @param headers header names in lower case
   * @param writtenWhole false when the server closed before the whole request was written
   */
  record Response(int status, Map<String, String> headers, String body, boolean writtenWhole)
      implements ApiServer.Answer {
    @Override
    public @Nullable String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }
  }
}
