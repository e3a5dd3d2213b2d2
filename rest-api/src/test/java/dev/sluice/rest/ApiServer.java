package dev.sluice.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.local.LocalRateLimiter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A real API server on 127.0.0.1, port 0, over a limiter with a manual clock, and a real HTTP
 * client to call it. Close it after the test.
 */
final class ApiServer implements AutoCloseable {
  static final String TOKEN = "s3cret-admin-token";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
  final LocalRateLimiter limiter;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final AtomicLong keysOwned = new AtomicLong();
  final SluiceApi api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  ApiServer() {
    this(TOKEN);
  }

  ApiServer(@Nullable String adminToken) {
    this(adminToken, ReadinessProbe.alwaysReady());
  }

  ApiServer(@Nullable String adminToken, ReadinessProbe readiness) {
    this.limiter = LocalRateLimiter.builder().timeSource(clock).build();
    this.api =
        new SluiceApi(
                limiter,
                registry,
                ApiSettings.withAdminToken(adminToken),
                readiness,
                keysOwned::get)
            .start("127.0.0.1", 0);
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + api.port() + path);
  }

  Response post(String path, String json) {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  Response get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  Response putAdmin(String path, String json) {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + TOKEN)
            .PUT(HttpRequest.BodyPublishers.ofString(json)));
  }

  Response deleteAdmin(String path) {
    return send(
        HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + TOKEN).DELETE());
  }

  Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(
              request.timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Response(response);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    api.stop();
  }

  /** What a test reads off any answer, however it was sent (here, or by {@link RawHttp}). */
  interface Answer {
    int status();

    String body();

    @Nullable String header(String name);

    JsonNode json();
  }

  /** An answer: status, headers, and the body as text and (when JSON) as a tree. */
  record Response(HttpResponse<String> raw) implements Answer {
    @Override
    public int status() {
      return raw.statusCode();
    }

    @Override
    public String body() {
      return raw.body();
    }

    @Override
    public @Nullable String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }

    @Override
    public JsonNode json() {
      try {
        return MAPPER.readTree(raw.body());
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + raw.body(), e);
      }
    }
  }
}
