package dev.sluice.bench.load;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A redis-server from the OS packages, started by the harness on a free loopback port with
 * persistence off ({@code --save '' --appendonly no}) and stopped by its own process handle.
 */
public final class RedisServer implements AutoCloseable {
  private final ManagedProcess process;
  private final int port;

  private RedisServer(ManagedProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The redis-server binary on the PATH or in the usual places, if there is one. */
  public static Optional<Path> findBinary() {
    return Executables.find("redis-server");
  }

  public static RedisServer start(Path binary, Path logDir) {
    int port = ManagedProcess.freePort();
    ManagedProcess process =
        ManagedProcess.start(
            "redis-server",
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--loglevel",
                "warning"),
            Map.of(),
            logDir);
    try {
      process.awaitPort(port, Duration.ofSeconds(15));
    } catch (RuntimeException e) {
      process.close();
      throw e;
    }
    return new RedisServer(process, port);
  }

  public int port() {
    return port;
  }

  public RedisClient newClient() {
    return clientOf(port);
  }

  /**
   * A Lettuce client of the Redis protocol on 127.0.0.1:{@code port} (this server, or a node's).
   */
  static RedisClient clientOf(int port) {
    return RedisClient.create(
        RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(port)
            .withTimeout(Duration.ofSeconds(10))
            .build());
  }

  /** {@code used_memory} from {@code INFO memory}, in bytes. */
  public static long usedMemory(StatefulRedisConnection<String, String> connection) {
    for (String line : connection.sync().info("memory").split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("INFO memory has no used_memory line");
  }

  /** The server's version, from {@code INFO server}. */
  public static String version(StatefulRedisConnection<String, String> connection) {
    for (String line : connection.sync().info("server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "redis-server on port " + port + " (pid " + process.pid() + ")";
  }
}
