package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import java.util.Objects;

/**
 * The {@link RateLimiter} of a Sluice grid, over any {@link HazelcastInstance}: an embedded member
 * or a client, the same class. Every decision runs as one entry processor on the member that owns
 * the key, reading that member's clock (DESIGN §3); the pipeline ({@link PipelineRateLimiter})
 * validates, groups and releases, the grid runtime ({@link GridBackend}) stores and sends.
 *
 * <p>{@link #close()} refuses later calls; it does not touch the Hazelcast instance, which belongs
 * to whoever started it.
 */
public final class GridRateLimiter extends PipelineRateLimiter implements AutoCloseable {

  /**
   * Tuning. The defaults are what measured fastest on a 2-core machine (docs/grid.md): synchronous
   * calls go straight to the owner (one invocation on the caller's thread: the fewest thread
   * hand-offs), asynchronous calls and batches go through the per-owner batchers (one invocation
   * for many requests), over the internal transport.
   *
   * @param batchSync send synchronous calls through the batchers (the caller waits)
   * @param batchAsync send asynchronous calls and batches through the batchers; when false every
   *     key is its own invocation
   * @param lanesPerMember concurrent batches per member; a key always uses the same lane
   * @param maxKeysPerBatch the most keys one invocation carries
   * @param transport how invocations travel ({@link GridTransport.Kind})
   */
  public record Options(
      boolean batchSync,
      boolean batchAsync,
      int lanesPerMember,
      int maxKeysPerBatch,
      GridTransport.Kind transport) {
    public Options {
      if (lanesPerMember < 1 || maxKeysPerBatch < 1) {
        throw new IllegalArgumentException("lanes and batch size must be at least 1");
      }
      Objects.requireNonNull(transport, "transport");
    }

    public static Options defaults() {
      return new Options(false, true, 2, 256, GridTransport.Kind.INTERNAL);
    }

    /** The same options with batching on or off for every kind of call. */
    public Options withBatching(boolean batching) {
      return new Options(batching, batching, lanesPerMember, maxKeysPerBatch, transport);
    }

    public Options withBatchSync(boolean batchSync) {
      return new Options(batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, transport);
    }

    public Options withLanesPerMember(int lanes) {
      return new Options(batchSync, batchAsync, lanes, maxKeysPerBatch, transport);
    }

    public Options withTransport(GridTransport.Kind kind) {
      return new Options(batchSync, batchAsync, lanesPerMember, maxKeysPerBatch, kind);
    }
  }

  private final GridBackend grid;

  public GridRateLimiter(HazelcastInstance hazelcast) {
    this(hazelcast, Options.defaults());
  }

  public GridRateLimiter(HazelcastInstance hazelcast, Options options) {
    this(new GridBackend(hazelcast, options));
  }

  private GridRateLimiter(GridBackend grid) {
    super(grid);
    this.grid = grid;
  }

  public HazelcastInstance hazelcast() {
    return grid.hazelcast();
  }

  /** The number of key states held in the grid (owned entries only). */
  public int stateCount() {
    return grid.stateCount();
  }

  @Override
  public void close() {
    grid.close();
  }
}
