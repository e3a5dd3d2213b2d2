package dev.sluice.bench.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A server process the harness started itself (a grid node, a Bucket4j member, the HTTP ceiling,
 * redis-server), with its output in a log file. The harness only ever stops processes it started,
 * by their handle: {@link #close} and a JVM shutdown hook that stops whatever is still running.
 */
public final class ManagedProcess implements AutoCloseable {
  private static final Set<ManagedProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> List.copyOf(RUNNING).forEach(ManagedProcess::close), "stop-servers"));
  }

  private final String name;
  private final Process process;
  private final Path log;

  private ManagedProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} with extra {@code environment}, output to {@code logDir/name.log}. */
  public static ManagedProcess start(
      String name, List<String> command, Map<String, String> environment, Path logDir) {
    try {
      Files.createDirectories(logDir);
      Path log = logDir.resolve(name + ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
      builder.environment().putAll(environment);
      ManagedProcess started = new ManagedProcess(name, builder.start(), log);
      RUNNING.add(started);
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
    }
  }

  /** A java command line: the same java binary and the same server JVM flags for every server. */
  public static List<String> javaCommand(List<String> jvmFlags, List<String> mainAndArgs) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.addAll(mainAndArgs);
    return command;
  }

  /** Waits until {@code port} on 127.0.0.1 accepts connections, or fails with the log's tail. */
  public void awaitPort(int port, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " exited with " + process.exitValue() + " before listening; " + logTail());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        sleep(Duration.ofMillis(100));
      }
    }
    throw new IllegalStateException(
        name + " did not listen on port " + port + " within " + timeout + "; " + logTail());
  }

  /**
   * Waits for a process that ends by itself (a load generator) to exit: its exit code, or -1 if it
   * is still running after {@code timeout} ({@link #close} then stops it).
   */
  public int awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  /** The last lines of the log, for error messages. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return "log "
          + log
          + " ends: "
          + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException | RuntimeException e) {
      return "log " + log;
    }
  }

  /** Stops the process: a polite signal first (shutdown hooks run), then a forced kill. */
  @Override
  public void close() {
    RUNNING.remove(this);
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** A free TCP port on 127.0.0.1 (free when asked; servers are started right after). */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ")";
  }
}
