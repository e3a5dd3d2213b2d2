package dev.sluice.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A grid node as a real process: {@code java -jar sluice-node.jar} with its settings in the
 * environment, its output in a log file. {@link #kill()} is {@code kill -9}; {@link #close()} is
 * SIGTERM, then {@code kill -9} if it has not stopped within ten seconds.
 *
 * <h2>Ports</h2>
 *
 * A test picks free ports ({@link TestNodes#freePort()}) and the node binds them a moment later, so
 * another process on this shared machine can take one in between. The node then exits with a {@code
 * BindException} (Hazelcast: "Port [n] is already in use", Javalin: "Port already in use"). {@link
 * #lostPortRace()} recognises that, and {@link #onFreshPorts(int)} starts the same node again on
 * new ports; {@link TestNodes#awaitCluster} does both while it waits, so every test gets the retry.
 * Read the ports a node has now from {@link #restPort()}, {@link #memberPort()} and {@link
 * #rlsPort()} (and {@link #respPort()}).
 */
final class NodeProcess implements AutoCloseable {
  private static final Pattern PORT_TAKEN = Pattern.compile("BindException|[Aa]lready in use");

  private final Path jar;
  private final Map<String, String> environment;
  private final Path log;
  private final Path workingDirectory;
  private Process process;

  NodeProcess(Path jar, Map<String, String> environment, Path log, Path workingDirectory) {
    this.jar = jar;
    this.environment = Map.copyOf(environment);
    this.log = log;
    this.workingDirectory = workingDirectory;
  }

  /** The jar failsafe built in this module's package phase. */
  static Path jar() {
    String jar = System.getProperty("sluice.node.jar", "target/sluice-node.jar");
    Path path = Path.of(jar);
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(path + " is missing: run ./mvnw -pl grid-node -am verify");
    }
    return path;
  }

  NodeProcess start() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Small and quick to start: three of these share two cores with the test.
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
    // The Envoy RLS port is fixed by default (8081); nodes of tests that do not ask for it keep
    // it off, so that two of them (or another test on this machine) never fight over it.
    builder.environment().put("SLUICE_RLS_PORT", "0");
    builder.environment().put("SLUICE_RESP_PORT", "0"); // the Redis port likewise (6380)
    builder.environment().putAll(environment);
    builder
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The REST port this node was given ({@code SLUICE_REST_PORT}). */
  int restPort() {
    return Integer.parseInt(environment.getOrDefault("SLUICE_REST_PORT", "8080"));
  }

  /** The Hazelcast member port this node was given ({@code SLUICE_MEMBER_PORT}). */
  int memberPort() {
    return Integer.parseInt(environment.getOrDefault("SLUICE_MEMBER_PORT", "5701"));
  }

  /** The Envoy RLS port this node was given ({@code SLUICE_RLS_PORT}); 0 when off. */
  int rlsPort() {
    return Integer.parseInt(environment.getOrDefault("SLUICE_RLS_PORT", "0"));
  }

  /** The Redis protocol port this node was given ({@code SLUICE_RESP_PORT}); 0 when off. */
  int respPort() {
    return Integer.parseInt(environment.getOrDefault("SLUICE_RESP_PORT", "0"));
  }

  /** The same node started again on the ports it has now, logging to {@code newLog}. */
  NodeProcess restarted(Path newLog) {
    return new NodeProcess(jar, environment, newLog, workingDirectory).start();
  }

  /**
   * True when the process has exited because a port it was given was taken. Only an exited node
   * counts: a live one may log a bind error that it survives.
   */
  boolean lostPortRace() {
    return process != null && !process.isAlive() && PORT_TAKEN.matcher(log()).find();
  }

  /**
   * The same node started again on fresh REST and member ports, logging to a new file beside the
   * old one ({@code node-0.log.retry-1}). Its own entry in {@code SLUICE_MEMBERS} follows the new
   * member port; other nodes still list the old one, which does not matter: this one finds them and
   * joins.
   */
  NodeProcess onFreshPorts(int attempt) {
    Map<String, String> fresh = new HashMap<>(environment);
    int oldMemberPort = memberPort();
    int newMemberPort = TestNodes.freePort();
    fresh.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    fresh.put("SLUICE_MEMBER_PORT", Integer.toString(newMemberPort));
    if (rlsPort() != 0) {
      fresh.put("SLUICE_RLS_PORT", Integer.toString(TestNodes.freePort()));
    }
    if (respPort() != 0) {
      fresh.put("SLUICE_RESP_PORT", Integer.toString(TestNodes.freePort()));
    }
    String members = fresh.get("SLUICE_MEMBERS");
    if (members != null) {
      String oldSelf = "127.0.0.1:" + oldMemberPort;
      fresh.put(
          "SLUICE_MEMBERS",
          Arrays.stream(members.split(","))
              .map(member -> member.equals(oldSelf) ? "127.0.0.1:" + newMemberPort : member)
              .collect(Collectors.joining(",")));
    }
    Path newLog = log.resolveSibling(log.getFileName() + ".retry-" + attempt);
    return new NodeProcess(jar, fresh, newLog, workingDirectory).start();
  }

  Path logFile() {
    return log;
  }

  /** {@code kill -9}: no shutdown hook runs, the member vanishes without handing anything over. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM and wait for the graceful shutdown; {@code kill -9} after ten seconds. */
  @Override
  public void close() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  int exitCode() throws InterruptedException {
    return process.waitFor();
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
