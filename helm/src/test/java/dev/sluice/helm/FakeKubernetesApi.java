package dev.sluice.helm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stands in for the Kubernetes API while helm renders the chart, on 127.0.0.1 and a free port.
 *
 * <p>Why it exists: helm-java renders with a dry run that still lets the template function {@code
 * lookup} reach a cluster, and the chart uses {@code lookup} to keep a generated admin token across
 * upgrades (the way {@code helm upgrade} behaves against a real cluster). Without a server the
 * render would fail (or worse, talk to whatever listens on the default localhost:8080). This fake
 * answers the two calls {@code lookup "v1" "Secret"} makes — API discovery of {@code v1} and a GET
 * of one Secret — from an in-memory map, and 404 for everything else. It records every path it was
 * asked for, so a test can show which lookups happened.
 *
 * <p>The Go library reads {@code KUBECONFIG} (set by surefire to {@code target/kubeconfig}) when it
 * is loaded, but reads the file itself on every call: {@link #start()} writes it before the first
 * render.
 */
final class FakeKubernetesApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String API_V1_RESOURCES =
      """
      {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "v1", "resources": [
        {"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]}
      """;

  private static FakeKubernetesApi instance;

  private final HttpServer server;
  private final Map<String, Map<String, String>> secrets = new ConcurrentHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  private FakeKubernetesApi() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts the one server of this JVM (once) and points the kubeconfig file at it. */
  static synchronized FakeKubernetesApi start() {
    if (instance == null) {
      try {
        instance = new FakeKubernetesApi();
        instance.writeKubeconfig();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return instance;
  }

  /** Makes a Secret exist in the fake cluster, as a previous install would have left it. */
  void putSecret(String namespace, String name, Map<String, String> plainData) {
    secrets.put(namespace + "/" + name, Map.copyOf(plainData));
  }

  void clear() {
    secrets.clear();
    requests.clear();
  }

  List<String> requests() {
    return List.copyOf(requests);
  }

  private void writeKubeconfig() throws IOException {
    String kubeconfigPath = System.getenv("KUBECONFIG");
    if (kubeconfigPath == null || kubeconfigPath.isBlank()) {
      throw new IllegalStateException(
          "KUBECONFIG is not set: run the chart tests through Maven (surefire sets it)");
    }
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    String kubeconfig =
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: fake
            cluster:
              server: %s
        users:
          - name: fake
            user: {}
        contexts:
          - name: fake
            context:
              cluster: fake
              user: fake
        current-context: fake
        """
            .formatted(url);
    Path path = Path.of(kubeconfigPath);
    Files.createDirectories(path.toAbsolutePath().getParent());
    Files.writeString(path, kubeconfig);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(exchange.getRequestMethod() + " " + path);
    String[] parts = path.split("/");
    // /api/v1/namespaces/{ns}/secrets/{name} splits into ["", api, v1, namespaces, ns, secrets,
    // name]
    if (path.equals("/api/v1")) {
      respond(exchange, 200, API_V1_RESOURCES);
    } else if (parts.length == 7
        && path.startsWith("/api/v1/namespaces/")
        && parts[5].equals("secrets")) {
      Map<String, String> data = secrets.get(parts[4] + "/" + parts[6]);
      if (data == null) {
        respond(exchange, 404, notFound("secrets", parts[6]));
      } else {
        respond(exchange, 200, secret(parts[4], parts[6], data));
      }
    } else {
      respond(exchange, 404, notFound("", path));
    }
  }

  private static String secret(String namespace, String name, Map<String, String> plainData) {
    Map<String, String> data = new java.util.TreeMap<>();
    plainData.forEach(
        (k, v) ->
            data.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return json(
        Map.of(
            "apiVersion", "v1",
            "kind", "Secret",
            "metadata", Map.of("name", name, "namespace", namespace),
            "type", "Opaque",
            "data", data));
  }

  private static String notFound(String kind, String name) {
    return json(
        Map.of(
            "apiVersion", "v1",
            "kind", "Status",
            "status", "Failure",
            "reason", "NotFound",
            "code", 404,
            "message", kind + " \"" + name + "\" not found",
            "details", Map.of("name", name, "kind", kind)));
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
