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
import java.util.List;
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
 * static final RespNode NODE = new RespNode();}), or several of one cluster ({@link #cluster}):
 * started before its tests, closed after them.
 */
final class RespNode implements BeforeAllCallback, AfterAllCallback {
  final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final int size;
  private final Map<String, String> settings;
  private @Nullable Path dir;
  private List<SluiceNode> nodes = List.of();

  RespNode() {
    this(Map.of());
  }

  /** A node with these settings besides the test defaults (an admin token, say). */
  RespNode(Map<String, String> settings) {
    this(1, settings);
  }

  private RespNode(int size, Map<String, String> settings) {
    this.size = size;
    this.settings = Map.copyOf(settings);
  }

  /** {@code size} members of one cluster, all on {@link #clock}. */
  static RespNode cluster(int size) {
    return new RespNode(size, Map.of());
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("resp-node");
    nodes = RespNodes.start(size, clock, dir, settings);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    nodes.forEach(SluiceNode::close);
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(file);
        }
      }
    }
  }

  SluiceNode node() {
    return nodes().get(0);
  }

  /** The members, the first being {@link #node()}. */
  List<SluiceNode> nodes() {
    if (nodes.isEmpty()) {
      throw new IllegalStateException("the nodes start before the class's tests");
    }
    return nodes;
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
