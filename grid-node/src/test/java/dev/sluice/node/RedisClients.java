package dev.sluice.node;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lettuce, a real Java Redis client, as the tests use it on the Redis port: commands it does not
 * know ({@code CL.THROTTLE}, {@code GCRA}, {@code SLUICE.*}) through {@code dispatch}, the first
 * argument marked as the key so that a cluster client routes by it.
 */
final class RedisClients {
  private RedisClients() {}

  /** A command Lettuce does not know, by name. */
  record Keyword(String command) implements ProtocolKeyword {
    @Override
    public byte[] getBytes() {
      return command.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
      return command;
    }
  }

  /** A client of {@code 127.0.0.1:port} speaking {@code protocol}. */
  static RedisClient client(int port, ProtocolVersion protocol) {
    RedisClient client =
        RedisClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(port)
                .withTimeout(Duration.ofSeconds(10))
                .build());
    client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
    return client;
  }

  /** {@code command key args...}: the reply as Lettuce reads an array (or a map, in RESP3). */
  static List<Object> call(
      StatefulRedisConnection<String, String> connection, String command, Object... args) {
    return connection.sync().dispatch(new Keyword(command), output(), arguments(args));
  }

  static List<Object> call(
      StatefulRedisClusterConnection<String, String> connection, String command, Object... args) {
    return connection.sync().dispatch(new Keyword(command), output(), arguments(args));
  }

  private static ArrayOutput<String, String> output() {
    return new ArrayOutput<>(StringCodec.UTF8);
  }

  /** The first argument a key, the rest plain. */
  private static CommandArgs<String, String> arguments(Object... args) {
    CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
    for (int i = 0; i < args.length; i++) {
      if (i == 0) {
        arguments.addKey(String.valueOf(args[i]));
      } else {
        arguments.add(String.valueOf(args[i]));
      }
    }
    return arguments;
  }

  /**
   * A {@code SLUICE.*} decision's fields, from RESP3's map or RESP2's flat array of field and value
   * (as {@code HGETALL}).
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> fields(Object reply) {
    Map<String, Object> fields = new LinkedHashMap<>();
    if (reply instanceof Map<?, ?> map) {
      map.forEach((k, v) -> fields.put(String.valueOf(k), v));
      return fields;
    }
    List<Object> list = (List<Object>) reply;
    if (list.size() == 1 && list.get(0) instanceof Map<?, ?> map) {
      return fields(map);
    }
    for (int i = 0; i + 1 < list.size(); i += 2) {
      fields.put(String.valueOf(list.get(i)), list.get(i + 1));
    }
    return fields;
  }

  /** A yes-or-no field: the integer 1 or 0, in either protocol. */
  static boolean bool(Object value) {
    return ((Long) value) == 1;
  }
}
