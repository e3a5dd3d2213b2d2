package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BatchingBackend;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import dev.sluice.core.rules.RuleCache;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The {@link RateLimiter} of a Sluice grid, over any {@link HazelcastInstance}: an embedded member
 * or a client, the same class. Every decision runs as one entry processor on the member that owns
 * the key, reading that member's clock (docs/grid.md), or is answered here from a lease that owner
 * granted; the pipeline ({@link PipelineRateLimiter}) validates, groups and releases, the grid
 * runtime ({@link GridBackend}) stores and sends, and in between stand leasing and batching ({@link
 * BackendStack}).
 *
 * <p>It can be made over a Hazelcast client that has not reached the cluster yet: calls fail fast
 * until it has ({@link #ready()}).
 *
 * <p>{@link #close()} refuses later calls; it does not touch the Hazelcast instance, which belongs
 * to whoever started it.
 */
public final class GridRateLimiter extends PipelineRateLimiter implements AutoCloseable {

  /**
   * Tuning. The defaults are what measured fastest on a 2-core machine (docs/grid.md): synchronous
   * calls go straight to the owner (one invocation on the caller's thread: the fewest thread
   * hand-offs), asynchronous calls and batches go through the per-owner lanes of the batching layer
   * (one invocation for many requests, {@link BatchingBackend}), over the internal transport.
   *
   * @param batchSync send synchronous calls through the lanes (the caller waits)
   * @param batchAsync send asynchronous calls and batches through the lanes; when false every key
   *     is its own invocation
   * @param lanesPerMember concurrent batches per member; a key always uses the same lane
   * @param maxKeysPerBatch the most keys one invocation carries
   * @param transport how invocations travel ({@link GridTransport.Kind})
   * @param leases ask the owners of hot keys for leases, and answer from them here (for rules whose
   *     {@code leases} is {@code auto}; docs/client.md, "Leases")
   * @param leaseClock this JVM's monotonic clock for lease ends, {@code System::nanoTime}; a test
   *     whose grid decides on a manual clock gives that clock's readings, so that leases end when
   *     the owners say
   */
  public record Options(
      boolean batchSync,
      boolean batchAsync,
      int lanesPerMember,
      int maxKeysPerBatch,
      GridTransport.Kind transport,
      boolean leases,
      LongSupplier leaseClock) {
    public Options {
      if (lanesPerMember < 1 || maxKeysPerBatch < 1) {
        throw new IllegalArgumentException("lanes and batch size must be at least 1");
      }
      Objects.requireNonNull(transport, "transport");
      Objects.requireNonNull(leaseClock, "leaseClock");
    }

    public static Options defaults() {
      return new Options(false, true, 2, 256, GridTransport.Kind.INTERNAL, true, System::nanoTime);
    }

    /** The same options with batching on or off for every kind of call. */
    public Options withBatching(boolean batching) {
      return new Options(
          batching, batching, lanesPerMember, maxKeysPerBatch, transport, leases, leaseClock);
    }

    public Options withBatchSync(boolean batchSync) {
      return new Options(
          batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, transport, leases, leaseClock);
    }

    public Options withLanesPerMember(int lanes) {
      return new Options(
          batchSync, batchAsync, lanes, maxKeysPerBatch, transport, leases, leaseClock);
    }

    public Options withTransport(GridTransport.Kind kind) {
      return new Options(
          batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, kind, leases, leaseClock);
    }

    /** The same options asking for leases or not. */
    public Options withLeases(boolean enabled) {
      return new Options(
          batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, transport, enabled, leaseClock);
    }

    /** The same options holding leases on {@code clock} (a test's manual clock). */
    public Options withLeaseClock(LongSupplier clock) {
      return new Options(
          batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, transport, leases, clock);
    }
  }

  private final GridBackend grid;

  public GridRateLimiter(HazelcastInstance hazelcast) {
    this(hazelcast, Options.defaults());
  }

  public GridRateLimiter(HazelcastInstance hazelcast, Options options) {
    this(new GridBackend(hazelcast, options), options);
  }

  private GridRateLimiter(GridBackend grid, Options options) {
    super(
        BackendStack.over(grid)
            .leases(options.leases() ? options.leaseClock() : null)
            .batching(
                grid,
                options.batchSync()
                    ? BatchingBackend.SyncCalls.LANES
                    : BatchingBackend.SyncCalls.DIRECT,
                options.batchAsync(),
                options.maxKeysPerBatch())
            .build());
    this.grid = grid;
  }

  /** The runtime under this limiter: how a region's link sends home its lease asks. */
  Backend gridBackend() {
    return grid;
  }

  public HazelcastInstance hazelcast() {
    return grid.hazelcast();
  }

  /**
   * Completes once this limiter can reach the grid's objects: at once over a member; over a
   * Hazelcast client, when the client first reaches the cluster. Before that every call fails at
   * once with {@code HazelcastClientOfflineException}, as the client's own calls do offline, so a
   * limiter over a client can be made while the grid is away.
   */
  public CompletableFuture<Void> ready() {
    return grid.ready();
  }

  /**
   * Completes once {@link #ruleCache()} follows the cluster's rule changes and holds a copy of
   * every rule (or its read failed: the grid went away again), after {@link #ready()}.
   */
  public CompletableFuture<Void> rulesCopied() {
    return grid.rulesCopied();
  }

  /**
   * The one copy of the grid's rules that a client in front of this limiter reads ({@code
   * SluiceClient}): over a Hazelcast client also what {@link #rules()} answers; over a member,
   * whose own copy {@link #rules()} answers, one that follows the cluster's rule events from the
   * first call on.
   */
  public RuleCache ruleCache() {
    return grid.ruleCache();
  }

  /** The number of key states held in the grid (owned entries only). */
  public int stateCount() {
    return grid.stateCount();
  }

  /** Gives every lease back, then refuses later calls. */
  @Override
  public void close() {
    closeLeases();
    grid.close();
  }
}
