package dev.sluice.bench.load;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The Redis peer of the Redis port: {@code CL.THROTTLE} as a Lua script ({@code gcra_throttle.lua})
 * called with {@code EVALSHA}, through Lettuce on one shared connection. For the Java driver's
 * saturating runs; {@code redis-benchmark} calls the same script by its SHA.
 */
final class RedisGcraLua extends ThrottleContender {
  private final String sha;

  RedisGcraLua(String name, RedisServer server, ThrottleParameters parameters) {
    super(name, server.port(), parameters);
    this.sha = connection.sync().scriptLoad(script());
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
  protected List<Object> throttle(String key, List<String> parameters) {
    return connection
        .sync()
        .evalsha(
            sha, ScriptOutputType.MULTI, new String[] {key}, parameters.toArray(new String[0]));
  }

  /** The script's five integers for one call, for a test against CL.THROTTLE's. */
  List<Object> call(String key, String... args) {
    return throttle(key, List.of(args));
  }
}
