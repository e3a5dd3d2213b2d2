package dev.sluice.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A grid node as a real process: {@code java -jar sluice-node.jar} with its settings in the
 * environment, its output in a log file. {@link #kill()} is {@code kill -9}; {@link #close()} is
 * SIGTERM, then {@code kill -9} if it has not stopped within ten seconds.
 */
final class NodeProcess implements AutoCloseable {
  private final Path jar;
  private final Map<String, String> environment;
  private final Path log;
  private final Path workingDirectory;
  private Process process;

  NodeProcess(Path jar, Map<String, String> environment, Path log, Path workingDirectory) {
    this.jar = jar;
    this.environment = environment;
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
