package dev.sluice.node;

import dev.sluice.core.ManualTimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One member serving the Redis port on a manual clock, for a test class ({@code @RegisterExtension
 * static final RespNode NODE = new RespNode();}): started before its tests, closed after them.
 */
final class RespNode implements BeforeAllCallback, AfterAllCallback {
  final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final Map<String, String> settings;
  private @Nullable Path dir;
  private @Nullable SluiceNode node;

  RespNode() {
    this(Map.of());
  }

  /** A node with these settings besides the test defaults (an admin token, say). */
  RespNode(Map<String, String> settings) {
    this.settings = Map.copyOf(settings);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("resp-node");
    node = RespNodes.start(1, clock, dir, settings).get(0);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (node != null) {
      node.close();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(file);
        }
      }
    }
  }

  SluiceNode node() {
    SluiceNode started = node;
    if (started == null) {
      throw new IllegalStateException("the node starts before the class's tests");
    }
    return started;
  }

  int respPort() {
    return node().respPort();
  }

  /**
   * Runs {@code body} on a Lettuce connection in {@code protocol}, with a key prefix no other test
   * shares.
   */
  void with(
      ProtocolVersion protocol, BiConsumer<StatefulRedisConnection<String, String>, String> body) {
    RedisClient client = RedisClients.client(respPort(), protocol);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      body.accept(connection, protocol + "-" + UUID.randomUUID() + ":");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
