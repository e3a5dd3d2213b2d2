package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.StateValue;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

/**
 * How an entry processor reaches the member that owns its key: the one seam between Sluice's grid
 * runtime and Hazelcast's invocation machinery, and the only package allowed Hazelcast's internal
 * APIs (an ArchUnit test holds it).
 *
 * <p>Two implementations pass the same tests: {@link InternalTransport} (Sluice's batch message and
 * invokers that skip a thread hand-off, measured in docs/grid.md) and {@link PublicApiTransport}
 * (nothing but {@code executeOnKey}, {@code submitToKey} and {@code submitToKeys}), the way out
 * should a Hazelcast upgrade break the internals.
 */
public interface GridTransport {

  /** Runs {@code processor} on {@code key}'s owner; the caller's thread waits for the result. */
  <R> R invoke(String key, EntryProcessor<String, StateValue, R> processor);

  /**
   * {@link #invoke}, waiting at most {@code timeoutNanos}.
   *
   * @throws TimeoutException if no answer came in time (the processor may still run)
   */
  <R> R invoke(String key, EntryProcessor<String, StateValue, R> processor, long timeoutNanos)
      throws TimeoutException;

  /** Runs {@code processor} on {@code key}'s owner asynchronously. */
  <R> CompletableFuture<R> invokeAsync(String key, EntryProcessor<String, StateValue, R> processor);

  /**
   * Decides a batch whose keys {@code owner} owns (one command per key), each key in its own atomic
   * step: the outcomes by state key, or one failure for the batch, given once every key is done, in
   * a task on {@code completions} (never on a partition or network thread).
   */
  CompletionStage<Map<String, KeyOutcome>> deliver(
      UUID owner, DecideProcessor batch, Executor completions);

  /** Which implementation; {@link #INTERNAL} is the default (docs/grid.md has the measurements). */
  enum Kind {
    INTERNAL,
    PUBLIC_API
  }

  /** The transport of {@code kind} for the state map {@code mapName} on {@code hazelcast}. */
  static GridTransport of(Kind kind, HazelcastInstance hazelcast, String mapName) {
    IMap<String, StateValue> map = hazelcast.getMap(mapName);
    return kind == Kind.PUBLIC_API
        ? new PublicApiTransport(map)
        : new InternalTransport(hazelcast, map);
  }

  /** The executor on which asynchronous answers complete: Hazelcast's default async executor. */
  static Executor callbacks() {
    return AsyncCallbackExecutor.hazelcastDefault();
  }
}
