package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The Java HTTP load generator's contender: {@code POST /v1/check} with {@code {"rule","key",
 * "cost"}} through {@link HttpClient} over HTTP/1.1. With N load threads the client keeps N
 * connections open (one per in-flight request). The same class drives a Sluice grid node and the
 * ceiling, so the generator is identical on both sides; {@link #envoyJson} drives a node's {@code
 * POST /json} (envoyproxy/ratelimit's HTTP form of {@code ShouldRateLimit}) the same way.
 *
 * <p>Requests are built once per key before the run: building them is the generator's cost, not the
 * server's, and it is the same for both sides anyway.
 */
public final class HttpCheckContender implements Contender {
  private final String name;
  private final HttpClient client;
  private final Map<String, HttpRequest> requests = new HashMap<>();
  private final @Nullable Policy enforced;

  /** Checks {@code rule} on a server that limits nothing it is judged by (the ceiling). */
  public HttpCheckContender(String name, int port, String rule, KeySpace keys) {
    this(name, port, rule, keys, null);
  }

  /** Checks {@code rule} on a server that enforces {@code enforced} (a grid node). */
  public HttpCheckContender(
      String name, int port, String rule, KeySpace keys, @Nullable Policy enforced) {
    this(
        name,
        URI.create("http://127.0.0.1:" + port + "/v1/check"),
        key -> checkBody(rule, key),
        keys,
        enforced);
  }

  private HttpCheckContender(
      String name, URI uri, UnaryOperator<String> body, KeySpace keys, @Nullable Policy enforced) {
    this.enforced = enforced;
    this.name = name;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String prefix = ContenderKeys.prefix();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.key(i);
      requests.put(key, post(uri, body.apply(prefix + key)));
    }
  }

  /**
   * {@code POST /json} on a grid node's REST port: the request {@link RlsContender} sends over
   * gRPC, as JSON ({@code {"domain":"bench","descriptors":[{"entries":[{"key":"key","value":
   * <key>}]}]}}), which the node answers 200 when OK and 429 when OVER_LIMIT. The node also answers
   * 200 to a request that matches no limit, so one request first checks that the answer names the
   * matched limit ({@code currentLimit}); the body is not read during the run, as on {@code
   * /v1/check}.
   */
  static HttpCheckContender envoyJson(String name, int restPort, KeySpace keys, Policy enforced)
      throws IOException, InterruptedException {
    URI uri = URI.create("http://127.0.0.1:" + restPort + "/json");
    UnaryOperator<String> body =
        key ->
            "{\"domain\":\""
                + RlsContender.DOMAIN
                + "\",\"descriptors\":[{\"entries\":[{\"key\":\""
                + RlsContender.DESCRIPTOR_KEY
                + "\",\"value\":\""
                + key
                + "\"}]}]}";
    HttpCheckContender contender = new HttpCheckContender(name, uri, body, keys, enforced);
    HttpResponse<String> probe =
        contender.client.send(
            contender.requests.get(keys.key(0)), HttpResponse.BodyHandlers.ofString());
    if (probe.statusCode() != 200 || !probe.body().contains("\"currentLimit\"")) {
      throw new IllegalStateException(
          "POST /json matched no limit in domain "
              + RlsContender.DOMAIN
              + ": HTTP "
              + probe.statusCode()
              + " "
              + probe.body());
    }
    return contender;
  }

  static HttpRequest request(URI uri, String rule, String key) {
    return post(uri, checkBody(rule, key));
  }

  private static String checkBody(String rule, String key) {
    return "{\"rule\":\"" + rule + "\",\"key\":\"" + key + "\",\"cost\":1}";
  }

  private static HttpRequest post(URI uri, String body) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<Policy> enforced() {
    return Optional.ofNullable(enforced);
  }

  @Override
  public Outcome decide(String key) throws Exception {
    HttpResponse<Void> response =
        client.send(requests.get(key), HttpResponse.BodyHandlers.discarding());
    return switch (response.statusCode()) {
      case 200 -> Outcome.ALLOWED;
      case 429 -> Outcome.DENIED;
      default -> throw new IllegalStateException("HTTP " + response.statusCode());
    };
  }
}
