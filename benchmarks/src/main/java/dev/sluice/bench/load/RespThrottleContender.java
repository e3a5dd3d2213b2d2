package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code CL.THROTTLE} on a grid node's Redis port through Lettuce: one connection shared by every
 * calling thread (Lettuce pipelines concurrent callers on it), as {@link RedisSlidingWindow} calls
 * Redis. For the Java driver's saturating runs, where every answer is read and every admission
 * judged.
 */
final class RespThrottleContender implements Contender {
  private static final ProtocolKeyword THROTTLE =
      new ProtocolKeyword() {
        @Override
        public byte[] getBytes() {
          return "CL.THROTTLE".getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public String toString() {
          return "CL.THROTTLE";
        }
      };

  private final String name;
  private final ThrottleParameters parameters;
  private final String keyPrefix;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;

  RespThrottleContender(String name, int port, ThrottleParameters parameters) {
    this.name = name;
    this.parameters = parameters;
    this.keyPrefix = ContenderKeys.prefix();
    this.client =
        RedisClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(port)
                .withTimeout(Duration.ofSeconds(10))
                .build());
    this.connection = client.connect();
    this.commands = connection.sync();
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
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8)
            .addKey(keyPrefix + key)
            .addValues(parameters.arguments());
    List<Object> answer = commands.dispatch(THROTTLE, new ArrayOutput<>(StringCodec.UTF8), args);
    return ((Long) answer.get(0)) == 0L ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
