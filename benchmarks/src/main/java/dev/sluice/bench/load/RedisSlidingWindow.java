package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The Redis peer: a Lua sliding-window-counter script ({@code sliding_window.lua}, the same math as
 * Sluice's {@code sliding_window}) called with {@code EVALSHA} through Lettuce. One connection is
 * shared by every calling thread, which is how Lettuce is meant to be used: it pipelines the
 * commands of concurrent callers on that connection.
 */
public final class RedisSlidingWindow implements Contender {
  private final String name;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String sha;
  private final String rule;
  private final String limit;
  private final String windowMicros;
  private final Policy policy;

  /** {@code limit} per {@code window} on keys {@code <rule>|<key>}. */
  public RedisSlidingWindow(
      String name, RedisServer server, String rule, long limit, Duration window) {
    this.name = name;
    this.client = server.newClient();
    this.connection = client.connect();
    this.commands = connection.sync();
    this.sha = commands.scriptLoad(script());
    this.rule = rule;
    this.limit = Long.toString(limit);
    this.windowMicros = Long.toString(window.toNanos() / 1_000);
    this.policy = Policy.of(limit, window);
  }

  /** {@code rule}'s limit and window on keys {@code <rule name>|<key>}. */
  public RedisSlidingWindow(String name, RedisServer server, BenchRule rule) {
    this(name, server, rule.name(), rule.limit(), rule.window());
  }

  /** The Lua script's text. */
  public static String script() {
    try (InputStream in = RedisSlidingWindow.class.getResourceAsStream("sliding_window.lua")) {
      if (in == null) {
        throw new IllegalStateException("sliding_window.lua is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  /** The script's estimate is Sluice's sliding_window, windows aligned to the epoch. */
  @Override
  public Optional<Policy> enforced() {
    return Optional.of(policy);
  }

  @Override
  public Outcome decide(String key) {
    List<Object> answer =
        commands.evalsha(
            sha, ScriptOutputType.MULTI, new String[] {rule + "|" + key}, limit, windowMicros, "1");
    return ((Long) answer.get(0)) == 1L ? Outcome.ALLOWED : Outcome.DENIED;
  }

  /**
   * The decision at a given time instead of the server's clock (the script's optional 4th
   * argument), so that a test can drive the script and {@code SlidingWindow} on one timeline.
   */
  public boolean allowedAt(String key, long limit, long windowMicros, long nowMicros) {
    List<Object> answer =
        commands.evalsha(
            sha,
            ScriptOutputType.MULTI,
            new String[] {rule + "|" + key},
            Long.toString(limit),
            Long.toString(windowMicros),
            "1",
            Long.toString(nowMicros));
    return ((Long) answer.get(0)) == 1L;
  }

  /** The same decision without waiting, for filling many keys quickly (pipelined). */
  public CompletionStage<List<Object>> decideAsync(String key) {
    RedisAsyncCommands<String, String> async = connection.async();
    return async.evalsha(
        sha, ScriptOutputType.MULTI, new String[] {rule + "|" + key}, limit, windowMicros, "1");
  }

  public StatefulRedisConnection<String, String> connection() {
    return connection;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
