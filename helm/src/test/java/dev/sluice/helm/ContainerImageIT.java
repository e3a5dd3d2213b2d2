package dev.sluice.helm;

import static dev.sluice.helm.Podman.podman;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sluice.core.test.DebianPackages;
import dev.sluice.helm.ChartPod.Probe;
import dev.sluice.helm.Podman.Result;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grid node's image, started the way the chart's StatefulSet starts it: the settings come from
 * the rendered chart ({@link ChartPod}), not from this test. Two pods act out a small grid: each
 * must become live and ready within the chart's probes, decide by the chart's rules over REST, gRPC
 * (Envoy) and the Redis protocol, join the other into one cluster, and stop cleanly on SIGTERM
 * within the chart's grace period, handing its counters over.
 *
 * <p>The image is grid-node's {@code target/jib-image.tar}, built at {@code package} by its {@code
 * full} (or {@code image}) profile (docs/kubernetes.md). podman (with runc) comes from Debian's
 * packages; where they cannot be installed the test is skipped and says why.
 *
 * <p>What stands in for Kubernetes here: a {@link PodNetwork} (two network namespaces joined by a
 * veth pair: each pod has its own IP and the chart's ports, and no port is published); podman's
 * {@code --add-host} for the cluster DNS names of the pods, which the chart's {@code tcp-ip} member
 * list names (the chart's default discovery, {@code kubernetes-dns}, needs a DNS server); probes
 * and requests are {@code curl} run inside a pod's namespace with {@code nsenter}.
 */
@Tag("container")
class ContainerImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration COMMAND = Duration.ofSeconds(60);
  private static final String MAIN_CLASS = "dev.sluice.node.SluiceNode";

  /** The rule this test adds to the chart's values: the ConfigMap's, not the jar's examples. */
  private static final String RULE = "image-it";

  /** What the node logs last on a clean stop. */
  private static final String STOPPED = "Sluice node stopped";

  private static String image;
  private static boolean loadedHere;

  /** Names this run's containers and namespaces, so that runs side by side do not meet. */
  private final String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

  private final List<String> containers = new ArrayList<>();
  private PodNetwork network;

  @TempDir Path scratch;

  // Installing podman on a fresh machine takes minutes; loading the image about 10 s.
  @BeforeAll
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  static void loadImage() throws IOException {
    DebianPackages.require("podman", "runc", "curl", "iproute2", "util-linux");
    Path built = Path.of(System.getProperty("sluice.image.dir", "../grid-node/target"));
    Path tar = built.resolve("jib-image.tar");
    Path description = built.resolve("jib-image.json");
    if (!Files.isRegularFile(tar) || !Files.isRegularFile(description)) {
      throw new AssertionError(
          "no image at "
              + tar.toAbsolutePath()
              + ": grid-node's full profile builds it at package, or by hand:"
              + " ./mvnw -pl grid-node -am -Pimage package -DskipTests");
    }
    image = JSON.readTree(description.toFile()).path("imageId").asText().replace("sha256:", "");
    // An identical image already here (same bytes, same id) is someone else's: leave it there.
    loadedHere = podman(COMMAND, "image", "exists", image).exitCode() != 0;
    podman(Duration.ofMinutes(3), "load", "--quiet", "--input", tar.toString()).ok();
  }

  @AfterAll
  static void removeImage() {
    if (image != null && loadedHere) {
      // Without --force: a container of another test run using the same image keeps it.
      podman(COMMAND, "rmi", image);
    }
  }

  @AfterEach
  void removeContainersAndNetwork() {
    for (String container : containers) {
      podman(COMMAND, "rm", "--force", "--time", "0", container);
    }
    if (network != null) {
      network.close();
    }
  }

  @Test
  void image_runsJavaAsTheChartsUser_withNoShellNoHealthcheckAndItsLabels() throws IOException {
    JsonNode inspected = JSON.readTree(podman(COMMAND, "image", "inspect", image).ok().output());
    JsonNode config = inspected.get(0).path("Config");
    RenderedChart chart = SluiceChart.withDefaults().render();
    ChartPod pod = new ChartPod(chart);

    // runAsNonRoot checks the image's user when the pod names none: it must be the chart's.
    assertThat(config.path("User").asText()).isEqualTo(pod.user());
    List<String> entrypoint = new ArrayList<>();
    config.path("Entrypoint").forEach(part -> entrypoint.add(part.asText()));
    assertThat(entrypoint).first().isEqualTo("java");
    assertThat(entrypoint).contains(MAIN_CLASS).doesNotContain("sh", "/bin/sh", "-c");
    // Only documentation (a pod opens what its spec lists), but it should list what the chart
    // opens.
    List<String> exposed = new ArrayList<>();
    config.path("ExposedPorts").fieldNames().forEachRemaining(exposed::add);
    for (JsonNode port : chart.gridNodeContainer().path("ports")) {
      assertThat(exposed).contains(port.path("containerPort").asText() + "/tcp");
    }
    // Kubernetes probes the node; a HEALTHCHECK would only be ignored or disagree.
    assertThat(config.has("Healthcheck")).isFalse();
    assertThat(inspected.get(0).has("HealthCheck")).isFalse();
    JsonNode labels = config.path("Labels");
    assertThat(labels.path("org.opencontainers.image.version").asText())
        .isEqualTo(System.getProperty("sluice.project.version"));
    assertThat(labels.path("org.opencontainers.image.revision").asText())
        .matches("[0-9a-f]{40}|unknown");
    assertThat(labels.path("org.opencontainers.image.source").asText()).isNotEmpty();

    String container = "sluice-it-" + run + "-shell";
    containers.add(container);
    List<String> shell = new ArrayList<>(List.of("run", "--name", container, "--pull", "never"));
    shell.addAll(List.of("--network", "none", "--entrypoint", "/bin/sh"));
    shell.addAll(Podman.MACHINE_LIMITS);
    shell.addAll(List.of(image, "-c", "true"));
    Result noShell = podman(COMMAND, shell);
    assertThat(noShell.exitCode()).as(noShell.output()).isNotZero();
    assertThat(noShell.output()).contains("/bin/sh").containsIgnoringCase("no such file");
  }

  // Two JVM starts (the chart's startup probe allows 120 s each) and two graceful stops.
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void twoPods_withTheChartsSettings_becomeReadyDecideShareCountersAndStopCleanly()
      throws Exception {
    String token = HexFormat.of().formatHex(randomBytes(20));
    RenderedChart chart = grid(token).render();
    ChartPod pod = new ChartPod(chart);
    int limit = ruleLimit(chart, RULE);
    network = new PodNetwork(run);
    Map<String, String> clusterDns = clusterDns(chart, pod);

    Node zero = start(pod, podName(chart, 0), network.pod(0), clusterDns);
    awaitStarted(zero);
    assertThat(processUser(zero.pid())).isEqualTo(pod.user());
    assertThat(check(zero, "someone").path("remaining").asInt()).isEqualTo(limit - 1);
    // JMX: the JVM's meters (java.management) and the process's CPU (jdk.management).
    Http metrics = zero.http("GET", "/metrics", null, null);
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("jvm_memory_used_bytes", "jvm_threads_live_threads", "process_cpu_usage");
    // The admin token is the chart's Secret, read by the node from SLUICE_ADMIN_TOKEN.
    String reset = "{\"rule\":\"%s\",\"key\":\"nobody\"}".formatted(RULE);
    assertThat(zero.http("POST", "/v1/limits/reset", reset, null).status()).isEqualTo(401);
    assertThat(zero.http("POST", "/v1/limits/reset", reset, token).status()).isEqualTo(204);
    // Envoy's rate limit service over gRPC, with the chart's Envoy ConfigMap (2 an hour).
    assertThat(shouldRateLimit(zero)).isEqualTo(Code.OK);
    assertThat(shouldRateLimit(zero)).isEqualTo(Code.OK);
    assertThat(shouldRateLimit(zero)).isEqualTo(Code.OVER_LIMIT);
    // The Redis protocol (Netty): allowed, a limit of 5 + 1, 5 left, no retry.
    assertThat(redis(zero, "PING", "CL.THROTTLE redis-it 5 10 60", "QUIT"))
        .startsWith("+PONG\r\n*5\r\n:0\r\n:6\r\n:5\r\n:-1\r\n")
        .endsWith("+OK\r\n");

    Node one = start(pod, podName(chart, 1), network.pod(1), clusterDns);
    awaitStarted(one);
    // One cluster: the second pod counts on from the first pod's count.
    assertThat(check(one, "someone").path("remaining").asInt())
        .as(
            () ->
                "the second pod counts on from the first pod's count; their logs:\n"
                    + logs(zero.container())
                    + "\n"
                    + logs(one.container()))
        .isEqualTo(limit - 2);

    stopWithinGracePeriod(zero);
    // The count moved to the remaining member with the partitions: nothing was lost.
    assertThat(check(one, "someone").path("remaining").asInt()).isEqualTo(limit - 3);
    stopWithinGracePeriod(one);
  }

  /**
   * The chart as a two-pod grid with a fixed member list (its StatefulSet's pod names, as it writes
   * them), this test's rule, an admin token and one Envoy domain.
   *
   * <p>The rule is a token bucket refilling 7 an hour, so each check takes exactly one of what the
   * test counts (a permit takes 8.6 minutes to come back; the checks are seconds apart). A sliding
   * window would not do: its count is an estimate across a window boundary (the previous window's
   * count weighted by how much of it still overlaps), so a check made after a wall-clock boundary
   * the test happened to span sees one count less. The Envoy domain allows 2 an hour for the same
   * reason: its three calls must not straddle a boundary (a second apart, once in 3,600 runs).
   */
  private static SluiceChart grid(String token) {
    return SluiceChart.withDefaults()
        .values(
            """
            replicaCount: 2
            cluster:
              discovery: tcp-ip
            auth:
              adminToken: %s
            rules:
              - name: %s
                algorithm: token_bucket
                limit: 7
                window: 1h
            envoy:
              configFiles:
                edge.yaml: |
                  domain: edge
                  descriptors:
                    - key: remote_address
                      rate_limit:
                        unit: hour
                        requests_per_unit: 2
            """
                .formatted(token, RULE));
  }

  /**
   * What the cluster DNS would answer for the chart's member list: each member's host name is a
   * pod's (its name, then the headless Service's domain), at that pod's IP.
   */
  private Map<String, String> clusterDns(RenderedChart chart, ChartPod pod) {
    String members =
        RenderedChart.env(chart.gridNodeContainer()).get("SLUICE_MEMBERS").path("value").asText();
    Map<String, String> hosts = new LinkedHashMap<>();
    for (String member : members.split(",")) {
      String host = member.substring(0, member.lastIndexOf(':'));
      assertThat(member).endsWith(":" + pod.port("hazelcast"));
      for (int ordinal = 0; ordinal < 2; ordinal++) {
        if (host.startsWith(podName(chart, ordinal) + ".")) {
          hosts.put(host, network.pod(ordinal).ip());
        }
      }
    }
    assertThat(hosts).as("a member per pod in " + members).hasSize(2);
    return hosts;
  }

  private static String podName(RenderedChart chart, int ordinal) {
    return chart.one("StatefulSet").path("metadata").path("name").asText() + "-" + ordinal;
  }

  /** A started pod: its container, the process id of its node, its network and the chart's view. */
  private record Node(
      String container, long pid, PodNetwork.Pod network, ChartPod pod, Path scratch) {

    Http http(String method, String path, String json, String token) {
      return http(method, pod.port("http"), path, json, token, 10);
    }

    Http http(String method, int port, String path, String json, String token, int timeout) {
      List<String> curl = new ArrayList<>(List.of("curl", "-sS", "-m", Integer.toString(timeout)));
      curl.addAll(List.of("-X", method, "-w", "\n%{http_code}"));
      if (json != null) {
        curl.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", json));
      }
      if (token != null) {
        curl.addAll(List.of("-H", "Authorization: Bearer " + token));
      }
      curl.add("http://127.0.0.1:" + port + path);
      Result result = Podman.exec(Duration.ofSeconds(timeout + 10), network.inside(curl));
      String output = result.output();
      int lastLine = output.lastIndexOf('\n');
      String status = output.substring(lastLine + 1).strip();
      return new Http(
          status.matches("\\d{3}") ? Integer.parseInt(status) : 0,
          lastLine < 0 ? output : output.substring(0, lastLine));
    }
  }

  private record Http(int status, String body) {
    /** Kubernetes counts 200 to 399 as a passing httpGet probe. */
    boolean passes() {
      return status >= 200 && status < 400;
    }
  }

  /** Starts a pod of the StatefulSet as the kubelet would, in its own network namespace. */
  private Node start(
      ChartPod pod, String podName, PodNetwork.Pod address, Map<String, String> clusterDns) {
    String container = "sluice-it-" + run + "-" + podName;
    containers.add(container);
    List<String> command = new ArrayList<>(List.of("run", "--detach", "--name", container));
    command.addAll(List.of("--pull", "never", "--log-driver", "k8s-file"));
    command.addAll(List.of("--network", address.podmanNetwork(), "--hostname", podName));
    clusterDns.forEach((host, ip) -> command.addAll(List.of("--add-host", host + ":" + ip)));
    command.addAll(Podman.MACHINE_LIMITS);
    command.addAll(pod.runOptions(podName, address.ip(), scratch.resolve(podName)));
    command.add(image);
    command.addAll(pod.args());
    podman(COMMAND, command).ok();
    long pid = Long.parseLong(podman(COMMAND, "inspect", "-f", "{{.State.Pid}}", container).text());
    return new Node(container, pid, address, pod, scratch);
  }

  /**
   * Waits as the kubelet would: the startup probe may fail for its whole budget (period × failure
   * threshold) before the pod is restarted; then liveness must pass, and readiness within the same
   * budget.
   */
  private static void awaitStarted(Node node) throws InterruptedException {
    Probe startup = node.pod().probe("startupProbe");
    Probe liveness = node.pod().probe("livenessProbe");
    Probe readiness = node.pod().probe("readinessProbe");
    Duration budget =
        Duration.ofSeconds(
            startup.initialDelaySeconds()
                + (long) startup.periodSeconds() * startup.failureThreshold());
    long started = System.nanoTime();
    long deadline = started + budget.toNanos();
    await(node, startup, deadline, "live (startup probe) within " + budget);
    assertThat(probe(node, liveness).passes()).as("liveness probe").isTrue();
    await(node, readiness, deadline, "ready within " + budget);
    System.out.printf(
        "%s ready %d ms after it was started%n",
        node.container(), Duration.ofNanos(System.nanoTime() - started).toMillis());
    // What the JVM and Hazelcast say when the jlink'd runtime lacks a module they reach for.
    assertThat(logs(node.container()))
        .doesNotContain(
            "Unknown module", "NoClassDefFoundError", "ClassNotFoundException", "support jdk.net");
  }

  private static void await(Node node, Probe probe, long deadline, String what)
      throws InterruptedException {
    while (true) {
      Http answer = probe(node, probe);
      if (answer.passes()) {
        return;
      }
      boolean exited = !running(node.container());
      if (exited || System.nanoTime() > deadline) {
        throw new AssertionError(
            node.container()
                + (exited ? " exited before it was " : " not ")
                + what
                + "; last answer "
                + answer
                + "; log:\n"
                + logs(node.container()));
      }
      Thread.sleep(Duration.ofSeconds(probe.periodSeconds()).toMillis());
    }
  }

  private static Http probe(Node node, Probe probe) {
    return node.http("GET", probe.port(), probe.path(), null, null, probe.timeoutSeconds());
  }

  private static JsonNode check(Node node, String key) throws IOException {
    Http answer =
        node.http(
            "POST", "/v1/check", "{\"rule\":\"%s\",\"key\":\"%s\"}".formatted(RULE, key), null);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    JsonNode decision = JSON.readTree(answer.body());
    assertThat(decision.path("allowed").asBoolean()).as(answer.body()).isTrue();
    return decision;
  }

  /**
   * One {@code ShouldRateLimit} call with {@code curl}: a gRPC message is a 5-byte frame header (no
   * compression, length) and the protobuf bytes, over HTTP/2 without TLS.
   */
  private static Code shouldRateLimit(Node node) throws IOException {
    byte[] message =
        RateLimitRequest.newBuilder()
            .setDomain("edge")
            .addDescriptors(
                RateLimitDescriptor.newBuilder()
                    .addEntries(
                        RateLimitDescriptor.Entry.newBuilder()
                            .setKey("remote_address")
                            .setValue("203.0.113.7")))
            .build()
            .toByteArray();
    Path request = Files.createTempFile(node.scratch(), "rls-", ".request");
    Path response = Files.createTempFile(node.scratch(), "rls-", ".response");
    Files.write(
        request,
        ByteBuffer.allocate(5 + message.length)
            .put((byte) 0)
            .putInt(message.length)
            .put(message)
            .array());
    List<String> curl =
        List.of(
            "curl",
            "-sS",
            "-m",
            "10",
            "--http2-prior-knowledge",
            "-H",
            "Content-Type: application/grpc",
            "-H",
            "TE: trailers",
            "--data-binary",
            "@" + request,
            "-o",
            response.toString(),
            "http://127.0.0.1:"
                + node.pod().port("grpc-rls")
                + "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit");
    Podman.exec(Duration.ofSeconds(20), node.network().inside(curl)).ok();
    byte[] frame = Files.readAllBytes(response);
    assertThat(frame.length).as("a gRPC response message").isGreaterThan(5);
    return RateLimitResponse.parseFrom(Arrays.copyOfRange(frame, 5, frame.length)).getOverallCode();
  }

  /**
   * Inline commands to the Redis port, one a line, read until the node closes the connection (the
   * last should be QUIT): bash's {@code /dev/tcp} in the pod's namespace, no Redis client needed.
   */
  private static String redis(Node node, String... commands) {
    String lines = String.join("\r\n", commands) + "\r\n";
    List<String> bash =
        List.of(
            "timeout",
            "10",
            "bash",
            "-c",
            "exec 3<>/dev/tcp/127.0.0.1/$1 && printf '%s' \"$2\" >&3 && cat <&3",
            "redis",
            Integer.toString(node.pod().port("redis")),
            lines);
    return Podman.exec(Duration.ofSeconds(20), node.network().inside(bash)).ok().output();
  }

  /**
   * Acts out a pod deletion: the preStop hook (the kubelet counts the grace period from its start),
   * then SIGTERM, then SIGKILL at the end of the grace period. A clean stop is the JVM ending on
   * the SIGTERM (exit status 143, not 137) after the node logged its last line.
   */
  private static void stopWithinGracePeriod(Node node) throws IOException {
    int grace = node.pod().terminationGracePeriodSeconds();
    JsonNode preStop = node.pod().preStop();
    if (preStop != null && preStop.has("sleep")) {
      // The kubelet's own sleep: nothing runs in the container, and it uses up grace time.
      grace -= preStop.path("sleep").path("seconds").asInt();
    } else if (preStop != null && preStop.has("exec")) {
      List<String> exec = new ArrayList<>(List.of("exec", node.container()));
      preStop.path("exec").path("command").forEach(part -> exec.add(part.asText()));
      Result hook = podman(Duration.ofSeconds(grace), exec);
      assertThat(hook.exitCode()).as("preStop exec hook: " + hook.output()).isZero();
    } else if (preStop != null) {
      throw new AssertionError("preStop hook cannot be acted out: " + preStop);
    }
    long started = System.nanoTime();
    podman(
            Duration.ofSeconds(grace + 30),
            "stop",
            "--time",
            Integer.toString(grace),
            node.container())
        .ok();
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    JsonNode state =
        JSON.readTree(podman(COMMAND, "inspect", node.container()).ok().output())
            .get(0)
            .path("State");
    String log = logs(node.container());
    assertThat(state.path("ExitCode").asInt()).as(log).isEqualTo(143);
    assertThat(log.strip()).endsWith(STOPPED);
    System.out.printf(
        "%s stopped %d ms after SIGTERM (grace %d s)%n", node.container(), took.toMillis(), grace);
    assertThat(took).isLessThan(Duration.ofSeconds(grace));
  }

  private static boolean running(String container) {
    return podman(COMMAND, "inspect", "-f", "{{.State.Running}}", container).text().equals("true");
  }

  private static String logs(String container) {
    return podman(COMMAND, "logs", container).output();
  }

  /** The uid and gid of a process, as the host's kernel sees them (no user namespace here). */
  private static String processUser(long pid) throws IOException {
    String uid = null;
    String gid = null;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("Uid:")) {
        uid = line.split("\\s+")[1];
      } else if (line.startsWith("Gid:")) {
        gid = line.split("\\s+")[1];
      }
    }
    return uid + ":" + gid;
  }

  private static int ruleLimit(RenderedChart chart, String rule) throws IOException {
    String rules =
        chart
            .named("ConfigMap", SluiceChart.RELEASE + "-sluice")
            .path("data")
            .path("rules.yaml")
            .asText();
    for (JsonNode each : new YAMLMapper().readTree(rules).path("rules")) {
      if (each.path("name").asText().equals(rule)) {
        return each.path("limit").asInt();
      }
    }
    throw new AssertionError("no rule " + rule + " in the chart's rules.yaml:\n" + rules);
  }

  private static byte[] randomBytes(int count) {
    byte[] bytes = new byte[count];
    ThreadLocalRandom.current().nextBytes(bytes);
    return bytes;
  }
}
