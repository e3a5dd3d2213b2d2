package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The Redis peer of the Redis port: {@code CL.THROTTLE} as a Lua script ({@code gcra_throttle.lua})
 * called with {@code EVALSHA}, through Lettuce on one shared connection. For the Java driver's
 * saturating runs; {@code redis-benchmark} calls the same script by its SHA.
 */
final class RedisGcraLua implements Contender {
  private final String name;
  private final ThrottleParameters parameters;
  private final String[] arguments;
  private final String keyPrefix;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String sha;

  RedisGcraLua(String name, RedisServer server, ThrottleParameters parameters) {
    this.name = name;
    this.parameters = parameters;
    this.arguments = parameters.arguments().toArray(new String[0]);
    this.keyPrefix = ContenderKeys.prefix();
    this.client = server.newClient();
    this.connection = client.connect();
    this.commands = connection.sync();
    this.sha = commands.scriptLoad(script());
  }

  /** The script's text. */
  static String script() {
    try (InputStream in = RedisGcraLua.class.getResourceAsStream("gcra_throttle.lua")) {
      if (in == null) {
        throw new IllegalStateException("gcra_throttle.lua is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads the script into {@code server} and answers its SHA, for redis-benchmark's EVALSHA. */
  static String load(RedisServer server) {
    RedisClient client = server.newClient();
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return connection.sync().scriptLoad(script());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<Policy> enforced() {
    return Optional.of(parameters.policy());
  }

  @Override
  public Outcome decide(String key) {
    List<Object> answer =
        commands.evalsha(sha, ScriptOutputType.MULTI, new String[] {keyPrefix + key}, arguments);
    return ((Long) answer.get(0)) == 0L ? Outcome.ALLOWED : Outcome.DENIED;
  }

  /** The script's five integers for one call, for a test against CL.THROTTLE's. */
  List<Object> call(String key, String... args) {
    return commands.evalsha(sha, ScriptOutputType.MULTI, new String[] {key}, args);
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
