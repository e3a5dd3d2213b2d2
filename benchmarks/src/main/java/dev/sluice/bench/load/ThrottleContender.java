package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A contender that sends redis-cell's {@code CL.THROTTLE} (or a script answering as it does) over
 * one Lettuce connection shared by every calling thread, as an application does: Lettuce pipelines
 * the threads' commands on it. Its keys are its own ({@link ContenderKeys}); every admission is
 * judged against the GCRA its parameters stand for.
 */
abstract class ThrottleContender implements Contender {
  private final String name;
  private final ThrottleParameters parameters;
  private final String keyPrefix = ContenderKeys.prefix();
  private final RedisClient client;
  protected final StatefulRedisConnection<String, String> connection;

  ThrottleContender(String name, int port, ThrottleParameters parameters) {
    this.name = name;
    this.parameters = parameters;
    this.client = RedisServer.clientOf(port);
    this.connection = client.connect();
  }

  /** The five integers for {@code key} (this contender's own prefix in front). */
  protected abstract List<Object> throttle(String key, List<String> parameters);

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Optional<Policy> enforced() {
    return Optional.of(parameters.policy());
  }

  @Override
  public final Outcome decide(String key) {
    List<Object> answer = throttle(keyPrefix + key, parameters.arguments());
    return ((Long) answer.get(0)) == 0L ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
