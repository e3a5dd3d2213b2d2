package dev.sluice.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Debian's headless Chromium, driven over the DevTools protocol (a WebSocket of JSON commands and
 * events) with the JDK's own HTTP client: no WebDriver, no browser download. One page; every
 * console message, uncaught exception and browser log entry it produces is kept for the test to
 * judge ({@link #problems()}).
 *
 * <p>The flags keep it quiet and local: no sandbox (tests run as root), no GPU, no QUIC, no first
 * run, no background networking, component updates or sync (it fetches nothing), and a fresh
 * profile in a temporary directory that {@link #close} deletes.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  /** One thing the page or the browser reported as going wrong. */
  record Problem(String kind, String text, String url) {}

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<Problem> problems = new CopyOnWriteArrayList<>();

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** Starts Chromium with a page of {@code width} × {@code height} CSS pixels. */
  static HeadlessChromium start(int width, int height) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("sluice-chromium-");
    Process process =
        new ProcessBuilder(
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--hide-scrollbars",
                "--user-data-dir=" + profile,
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=" + width + "," + height,
                "about:blank")
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("chromium.log").toFile())
            .start();
    try {
      int port = devToolsPort(profile, process);
      HttpClient http = HttpClient.newHttpClient();
      JsonNode targets =
          MAPPER.readTree(
              http.send(
                      HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      String page = null;
      for (JsonNode target : targets) {
        if (target.path("type").asText().equals("page")) {
          page = target.path("webSocketDebuggerUrl").asText();
        }
      }
      if (page == null) {
        throw new IllegalStateException("Chromium has no page target: " + targets);
      }
      Listener listener = new Listener();
      WebSocket socket =
          http.newWebSocketBuilder()
              .buildAsync(URI.create(page), listener)
              .get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      HeadlessChromium chromium = new HeadlessChromium(process, profile, socket);
      listener.owner = chromium;
      chromium.send("Runtime.enable", MAPPER.createObjectNode());
      chromium.send("Log.enable", MAPPER.createObjectNode());
      chromium.send("Page.enable", MAPPER.createObjectNode());
      return chromium;
    } catch (IOException | InterruptedException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IOException("cannot attach to Chromium: " + e, e);
    }
  }

  /** Chromium writes the port it chose into {@code DevToolsActivePort} in its profile. */
  private static int devToolsPort(Path profile, Process process)
      throws IOException, InterruptedException {
    Path file = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        List<String> lines = Files.readAllLines(file);
        if (!lines.isEmpty() && !lines.get(0).isBlank()) {
          return Integer.parseInt(lines.get(0).trim());
        }
      }
      if (!process.isAlive()) {
        throw new IOException(
            "Chromium exited: " + Files.readString(profile.resolve("chromium.log")));
      }
      Thread.sleep(100); // waiting for a process to start
    }
    throw new IOException("Chromium did not open its DevTools port within 60 s");
  }

  /** Loads {@code url} and waits until the document has loaded. */
  void navigate(String url) {
    ObjectNode params = MAPPER.createObjectNode().put("url", url);
    send("Page.navigate", params);
    await(
        "loaded document",
        Duration.ofSeconds(30),
        () -> "complete".equals(evaluate("document.readyState").asText()));
  }

  /** Evaluates a JavaScript expression in the page (promises awaited) and returns its value. */
  JsonNode evaluate(String expression) {
    ObjectNode params =
        MAPPER
            .createObjectNode()
            .put("expression", expression)
            .put("returnByValue", true)
            .put("awaitPromise", true);
    JsonNode result = send("Runtime.evaluate", params);
    if (result.has("exceptionDetails")) {
      throw new AssertionError(
          "page threw on " + expression + ": " + result.path("exceptionDetails"));
    }
    return result.path("result").path("value");
  }

  /**
   * Waits until {@code condition} holds, polling the page; fails after {@code timeout} naming
   * {@code what} it waited for and what the page's status line said.
   */
  void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no "
                + what
                + " within "
                + timeout
                + "; the page's status: '"
                + evaluate("(document.querySelector('#status') || {}).textContent || ''").asText()
                + "'; problems so far: "
                + problems);
      }
      try {
        Thread.sleep(100); // polling a live page, not moving limiter time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** A PNG of the whole page (its full scroll height), scaled by {@code scale}. */
  byte[] screenshot(double scale) {
    JsonNode size = evaluate("[document.documentElement.scrollWidth, document.body.scrollHeight]");
    ObjectNode clip =
        MAPPER
            .createObjectNode()
            .put("x", 0)
            .put("y", 0)
            .put("width", size.get(0).asInt())
            .put("height", size.get(1).asInt())
            .put("scale", scale);
    ObjectNode params = MAPPER.createObjectNode().put("format", "png");
    params.set("clip", clip);
    params.put("captureBeyondViewport", true);
    return Base64.getDecoder().decode(send("Page.captureScreenshot", params).path("data").asText());
  }

  /** Console errors and warnings, uncaught exceptions and browser log errors, so far. */
  List<Problem> problems() {
    return List.copyOf(problems);
  }

  private JsonNode send(String method, ObjectNode params) {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    ObjectNode command = MAPPER.createObjectNode().put("id", id).put("method", method);
    command.set("params", params);
    try {
      socket.sendText(MAPPER.writeValueAsString(command), true).join();
      JsonNode response = answer.get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (response.has("error")) {
        throw new AssertionError(method + " failed: " + response.get("error"));
      }
      return response.path("result");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError(method + " failed: " + e, e);
    } finally {
      pending.remove(id);
    }
  }

  private void onMessage(JsonNode message) {
    if (message.has("id")) {
      CompletableFuture<JsonNode> answer = pending.get(message.get("id").asInt());
      if (answer != null) {
        answer.complete(message);
      }
      return;
    }
    JsonNode params = message.path("params");
    switch (message.path("method").asText()) {
      case "Runtime.consoleAPICalled" -> {
        String type = params.path("type").asText();
        if (type.equals("error") || type.equals("warning") || type.equals("assert")) {
          problems.add(new Problem("console." + type, params.path("args").toString(), ""));
        }
      }
      case "Runtime.exceptionThrown" ->
          problems.add(
              new Problem(
                  "exception",
                  params.path("exceptionDetails").toString(),
                  params.path("url").asText()));
      case "Log.entryAdded" -> {
        JsonNode entry = params.path("entry");
        if (entry.path("level").asText().equals("error")
            || entry.path("level").asText().equals("warning")) {
          problems.add(
              new Problem(
                  "log." + entry.path("source").asText(),
                  entry.path("text").asText(),
                  entry.path("url").asText()));
        }
      }
      default -> {}
    }
  }

  @Override
  public void close() {
    socket.abort();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Joins the WebSocket's text fragments into messages. */
  private static final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();
    private final List<String> early = new ArrayList<>();
    private volatile HeadlessChromium owner;

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        deliver(text);
      }
      webSocket.request(1);
      return null;
    }

    private synchronized void deliver(String text) {
      HeadlessChromium chromium = owner;
      if (chromium == null) {
        early.add(text);
        return;
      }
      for (String before : early) {
        parse(chromium, before);
      }
      early.clear();
      parse(chromium, text);
    }

    private static void parse(HeadlessChromium chromium, String text) {
      try {
        chromium.onMessage(MAPPER.readTree(text));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
