package dev.sluice.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** Real HTTP on loopback for the starter's tests, with a bounded wait on every call. */
final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final int port;

  Http(int port) {
    this.port = port;
  }

  HttpResponse<String> get(String path, String... headers) {
    return send("GET", path, headers);
  }

  HttpResponse<String> post(String path, String... headers) {
    return send("POST", path, headers);
  }

  HttpResponse<String> delete(String path, String... headers) {
    return send("DELETE", path, headers);
  }

  HttpResponse<String> send(String method, String path, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The Authorization header of HTTP Basic. */
  static String[] basic(String user, String password) {
    return new String[] {
      "Authorization",
      "Basic "
          + Base64.getEncoder()
              .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8))
    };
  }

  /** A port free right now on loopback. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
