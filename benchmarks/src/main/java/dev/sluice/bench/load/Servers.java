package dev.sluice.bench.load;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server processes of a run, each started at most once, when a scenario first needs it, and all
 * stopped by {@link #close}. A server that cannot start is remembered with its reason, so every
 * scenario that needs it reports "not run: reason" instead of failing the run.
 */
public final class Servers implements AutoCloseable {
  /**
   * The rules every Sluice grid node of the run serves (a rules file in the format of
   * docs/configuration.md).
   */
  public static final String RULES_YAML = BenchRule.rulesYaml(BenchRule.ALL);

  /**
   * The Envoy rate limit config every grid node of the run serves (envoyproxy/ratelimit's format):
   * {@link BenchRule#BENCH} as one descriptor per key ({@link RlsContender}).
   */
  public static final String ENVOY_YAML = RlsContender.envoyYaml(BenchRule.BENCH);

  private final Path logDir;
  private final Path nodeJar;
  private final List<AutoCloseable> started = new ArrayList<>();
  private final Map<String, CompletableFuture<Object>> servers = new ConcurrentHashMap<>();

  public Servers(Path logDir, Path nodeJar) {
    this.logDir = logDir;
    this.nodeJar = nodeJar;
  }

  /**
   * A Sluice grid node: {@code java -jar sluice-node.jar} with the SLUICE_* environment, serving
   * REST on {@code restPort}, Envoy's rate limit service (gRPC) on {@code rlsPort} and the Redis
   * protocol on {@code respPort}.
   */
  public record Node(
      ManagedProcess process,
      String clusterName,
      int memberPort,
      int restPort,
      int rlsPort,
      int respPort) {}

  /** Bucket4j's member in its own JVM. */
  public record Bucket4jMember(ManagedProcess process, String clusterName, int port) {}

  /** The run's one Hazelcast client of Bucket4j's member, shared by its client contenders. */
  public record Bucket4jClient(HazelcastInstance instance) implements AutoCloseable {
    @Override
    public void close() {
      instance.shutdown();
    }

    @Override
    public String toString() {
      return "Bucket4j's Hazelcast client";
    }
  }

  /** The HTTP ceiling in its own JVM. */
  public record Ceiling(ManagedProcess process, int port, int bodyBytes) {}

  public Node node() {
    return get(once("node", this::startNode), Node.class);
  }

  public Bucket4jMember bucket4j(int backupCount, String inMemoryFormat) {
    return get(
        once("bucket4j", () -> startBucket4j(backupCount, inMemoryFormat)), Bucket4jMember.class);
  }

  /**
   * A Hazelcast client of Bucket4j's member, one per run: its contenders never run at the same
   * time, and an application has one client however many proxies it builds.
   */
  public HazelcastInstance bucket4jClient(int backupCount, String inMemoryFormat) {
    return get(
            once(
                "bucket4j-client",
                () -> {
                  Bucket4jMember member = bucket4j(backupCount, inMemoryFormat);
                  return track(
                      new Bucket4jClient(
                          HazelcastClient.newHazelcastClient(
                              BenchMembers.bucket4jClient(member.clusterName(), member.port()))));
                }),
            Bucket4jClient.class)
        .instance();
  }

  public RedisServer redis() {
    return get(
        once(
            "redis",
            () ->
                RedisServer.findBinary()
                    .map(binary -> track(RedisServer.start(binary, logDir)))
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "redis-server is not installed (benchmarks/run.sh installs it"
                                    + " with apt-get; that failed or was skipped)"))),
        RedisServer.class);
  }

  /** The ceiling, answering with {@code body} and {@code headers} (a node's answer's). */
  public Ceiling ceiling(byte[] body, Map<String, List<String>> headers) {
    return get(once("ceiling", () -> startCeiling(body, headers)), Ceiling.class);
  }

  private Node startNode() throws IOException {
    if (!Files.isRegularFile(nodeJar)) {
      throw new IllegalStateException(
          "the grid node jar "
              + nodeJar
              + " does not exist (build it: ./mvnw -q -DskipTests package)");
    }
    Files.createDirectories(logDir);
    Path rules = logDir.resolve("rules.yaml");
    Files.writeString(rules, RULES_YAML, StandardCharsets.UTF_8);
    Path envoy = logDir.resolve("envoy.yaml");
    Files.writeString(envoy, ENVOY_YAML, StandardCharsets.UTF_8);
    int memberPort = ManagedProcess.freePort();
    int restPort = ManagedProcess.freePort();
    // A free port, never the default 8081: another run (or another program) may hold that one.
    int rlsPort = ManagedProcess.freePort();
    // Likewise never the Redis port's default 6380.
    int respPort = ManagedProcess.freePort();
    String cluster = "bench-" + UUID.randomUUID();
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SLUICE_REST_PORT", Integer.toString(restPort));
    env.put("SLUICE_MEMBER_PORT", Integer.toString(memberPort));
    env.put("SLUICE_CLUSTER_NAME", cluster);
    env.put("SLUICE_MEMBERS", "127.0.0.1:" + memberPort);
    env.put("SLUICE_RULES_FILE", rules.toAbsolutePath().toString());
    env.put("SLUICE_RLS_PORT", Integer.toString(rlsPort));
    env.put("SLUICE_ENVOY_CONFIG", envoy.toAbsolutePath().toString());
    env.put("SLUICE_RESP_PORT", Integer.toString(respPort));
    env.put("SLUICE_ADMIN_TOKEN", "bench-" + UUID.randomUUID());
    List<String> jar = List.of("-jar", nodeJar.toAbsolutePath().toString());
    ManagedProcess process =
        track(
            ManagedProcess.start(
                "sluice-node",
                ManagedProcess.javaCommand(BenchMembers.SERVER_JVM_FLAGS, jar),
                env,
                logDir));
    process.awaitPort(restPort, Duration.ofSeconds(90));
    awaitReady(process, restPort);
    process.awaitPort(rlsPort, Duration.ofSeconds(30));
    process.awaitPort(respPort, Duration.ofSeconds(30));
    return new Node(process, cluster, memberPort, restPort, rlsPort, respPort);
  }

  private static void awaitReady(ManagedProcess process, int restPort) {
    HttpClient http = HttpClient.newHttpClient();
    URI ready = URI.create("http://127.0.0.1:" + restPort + "/health/ready");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    int status = -1;
    while (System.nanoTime() < deadline && process.isAlive()) {
      try {
        status =
            http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
        if (status == 200) {
          return;
        }
      } catch (IOException e) {
        // not yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      ManagedProcess.sleep(Duration.ofMillis(200));
    }
    throw new IllegalStateException(
        "grid node not ready (last /health/ready status " + status + "); " + process.logTail());
  }

  private Bucket4jMember startBucket4j(int backupCount, String format) {
    int port = ManagedProcess.freePort();
    String cluster = "bench-b4j-" + UUID.randomUUID();
    List<String> main =
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            Bucket4jServer.class.getName(),
            cluster,
            Integer.toString(port),
            Integer.toString(backupCount),
            format);
    ManagedProcess process =
        track(
            ManagedProcess.start(
                "bucket4j-member",
                ManagedProcess.javaCommand(BenchMembers.SERVER_JVM_FLAGS, main),
                Map.of(),
                logDir));
    process.awaitPort(port, Duration.ofSeconds(60));
    return new Bucket4jMember(process, cluster, port);
  }

  private Ceiling startCeiling(byte[] body, Map<String, List<String>> headers) {
    int port = ManagedProcess.freePort();
    List<String> main = new ArrayList<>();
    main.add("-cp");
    main.add(System.getProperty("java.class.path"));
    main.add(CeilingServer.class.getName());
    main.add(Integer.toString(port));
    main.add(Base64.getEncoder().encodeToString(body));
    headers.forEach(
        (name, values) -> {
          String lower = name.toLowerCase(java.util.Locale.ROOT);
          if (lower.startsWith("ratelimit") || lower.startsWith("x-ratelimit")) {
            main.add(name + "=" + String.join(", ", values));
          }
        });
    ManagedProcess process =
        track(
            ManagedProcess.start(
                "http-ceiling",
                ManagedProcess.javaCommand(BenchMembers.SERVER_JVM_FLAGS, main),
                Map.of(),
                logDir));
    process.awaitPort(port, Duration.ofSeconds(60));
    return new Ceiling(process, port, body.length);
  }

  /**
   * Starts the grid node, Bucket4j's member and its client in the background, then runs {@code
   * then} (which may start more), for the quick run: their JVMs boot while the first scenario runs.
   * The full run does not do this, so that nothing else runs while a scenario is measured.
   */
  public void prestart(
      boolean node, boolean bucket4j, int backupCount, String inMemoryFormat, Runnable then) {
    Thread starter =
        new Thread(
            () -> {
              if (node) {
                once("node", this::startNode);
              }
              if (bucket4j) {
                try {
                  bucket4jClient(backupCount, inMemoryFormat);
                } catch (NotRunException e) {
                  // remembered: the scenarios that need it report "not run" with the reason
                }
              }
              then.run();
            },
            "prestart-servers");
    starter.setDaemon(true);
    starter.start();
  }

  /**
   * The server called {@code name}: started by the first caller (others wait for it), then
   * remembered, as the server or as the reason it could not start.
   */
  private Object once(String name, Start start) {
    CompletableFuture<Object> mine = new CompletableFuture<>();
    CompletableFuture<Object> existing = servers.putIfAbsent(name, mine);
    if (existing != null) {
      return existing.join();
    }
    Object server = attempt(start);
    mine.complete(server);
    return server;
  }

  private synchronized <T extends AutoCloseable> T track(T server) {
    started.add(server);
    return server;
  }

  private interface Start {
    Object start() throws Exception;
  }

  private static Object attempt(Start start) {
    long startNanos = System.nanoTime();
    try {
      Object server = start.start();
      System.out.printf(
          java.util.Locale.ROOT,
          "   started %s in %.1f s%n",
          server,
          (System.nanoTime() - startNanos) / 1e9);
      return server;
    } catch (Exception e) {
      String reason = e.getMessage() == null ? e.toString() : e.getMessage();
      System.out.println("   could not start a server: " + reason);
      return new Failed(reason);
    }
  }

  private record Failed(String reason) {}

  private static <T> T get(Object holder, Class<T> type) {
    if (holder instanceof Failed failed) {
      throw new NotRunException(failed.reason());
    }
    return type.cast(holder);
  }

  @Override
  public synchronized void close() {
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        System.err.println("could not stop " + started.get(i) + ": " + e);
      }
    }
    started.clear();
  }

  /** Says why a contender or a server could not run; the report prints it as "not run". */
  public static final class NotRunException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotRunException(String reason) {
      super(reason);
    }
  }
}
