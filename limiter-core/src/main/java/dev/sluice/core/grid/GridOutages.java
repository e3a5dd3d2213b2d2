package dev.sluice.core.grid;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.OperationTimeoutException;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.backend.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Where Hazelcast's failures to answer become the core's {@link LimiterUnavailableException}, once,
 * at the edge of the grid runtime ({@link GridBackend}, {@link GridRuleStore}): every front end
 * (REST, Envoy, the Redis port, the client's failure policy) then tells an outage from a bad
 * request without knowing Hazelcast.
 *
 * <p>An outage is any {@link HazelcastException} (a timeout, a member that left, a disconnected
 * target, an overloaded member, ...) and the two that Hazelcast throws as {@link
 * IllegalStateException}s: a client offline, an instance shutting down. What the owner of a key
 * threw itself (an unknown rule, a cost above the capacity) is the request's error and passes as it
 * is.
 */
final class GridOutages {
  private GridOutages() {}

  /** {@code failure} as the core sees it: an outage translated, anything else as it is. */
  static RuntimeException translated(RuntimeException failure) {
    Throwable cause = Futures.unwrap(failure);
    return isOutage(cause) ? unavailable(cause) : failure;
  }

  /** {@code answer}, failing with {@link LimiterUnavailableException} where it fails by outage. */
  static <T> CompletableFuture<T> translated(CompletableFuture<T> answer) {
    return answer.exceptionally(
        failure -> {
          Throwable cause = Futures.unwrap(failure);
          if (isOutage(cause)) {
            throw unavailable(cause);
          }
          throw failure instanceof CompletionException completion
              ? completion
              : new CompletionException(failure);
        });
  }

  private static boolean isOutage(Throwable cause) {
    return cause instanceof HazelcastException
        || cause instanceof HazelcastInstanceNotActiveException
        || cause instanceof HazelcastClientOfflineException;
  }

  private static LimiterUnavailableException unavailable(Throwable cause) {
    String why =
        cause instanceof HazelcastClientOfflineException
            ? "this node is not connected to the grid"
            : cause instanceof HazelcastInstanceNotActiveException
                ? "this node is shutting down"
                : cause instanceof OperationTimeoutException
                    ? "the grid did not answer in time"
                    : "the grid failed to answer";
    return new LimiterUnavailableException(why, cause);
  }
}
