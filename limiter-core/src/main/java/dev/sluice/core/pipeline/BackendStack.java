package dev.sluice.core.pipeline;

import dev.sluice.core.backend.AdmissionReceipts;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BatchingBackend;
import dev.sluice.core.lease.LeaseAnswers;
import dev.sluice.core.lease.LeaseAsks;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.lease.LeasePolicy;
import dev.sluice.core.lease.LeaseReturns;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The layers in front of a runtime's storage, built here, in one order, for every runtime: the
 * client-side optimizations are decorators of the narrow {@link Backend} seam, as Bucket4j's
 * optimizations wrap its command executor, never of the wide {@code RateLimiter}.
 *
 * <pre>
 *   PipelineRateLimiter       a check becomes a command; batches, release, reserve; metrics
 *     1. lease answers        a live lease answers an acquire
 *     2. denied-until cache   a key the grid just denied is denied here until its retry-after
 *     3. failure policy       the deadline, the breaker, the rule's fail-open or fail-closed answer
 *     4. lease asks           what goes to the owner asks for a lease on a hot key; leases kept
 *     5. batching             calls on one key merge, calls to one owner share a lane
 *     storage                 GridBackend (an entry processor on the owner) or LocalBackend
 * </pre>
 *
 * The order is the one that keeps each layer's promise. A lease answers first, even while the
 * breaker is open: its permits were admitted by the owner when it granted them. A cached denial
 * comes before the failure policy, which would answer a known denial by its policy. The failure
 * policy bounds everything that waits for the grid, batching lanes included. Leasing's second
 * place, its asks, is below both: only a request that goes to the owner counts as one on its key
 * and carries an ask (an attack answered by the cache, or an outage answered by the policy, makes
 * no key look hot). Batching sits next to the storage, where the invocations are.
 *
 * <p>Which layers a runtime has: the local limiter, none; a grid limiter (an embedded member, a
 * REST or Envoy node in member mode) leasing and batching, its synchronous calls each on its
 * caller's thread; the SDK's {@code SluiceClient} (also a client-mode node) adds to the limiter it
 * wraps the denied-until cache and the failure policy, and coalesces synchronous calls on a hot
 * key. The denied-until cache and the failure policy are the client's ({@link Layer}); this class
 * puts them in their place. Leases are given back, and renewed ahead, through the
 * <em>transport</em> (batching over the storage), never through the layers in front of it: a return
 * is not a decision.
 */
public final class BackendStack {

  /** The layers, outermost first, by the names {@link #layers()} reports. */
  public enum Position {
    LEASE_ANSWERS("lease answers"),
    DENIED_CACHE("denied-until cache"),
    FAILURE_POLICY("failure policy"),
    LEASE_ASKS("lease asks"),
    BATCHING("batching");

    private final String label;

    Position(String label) {
      this.label = label;
    }

    /** How docs and {@link #layers()} name this layer. */
    public String label() {
      return label;
    }
  }

  /** What {@link #layers()} calls the storage at the bottom. */
  public static final String STORAGE = "storage";

  /** A layer made by the module that knows it (the client's): it wraps the layers below it. */
  @FunctionalInterface
  public interface Layer {
    Backend over(Backend below);
  }

  private final Builder recipe;
  private final Backend storage;
  private final Backend transport;
  private final Backend head;
  private final AdmissionReceipts receipts;
  private final @Nullable Leases leases;
  private final boolean ownsLeases;
  private final List<String> layers;

  private BackendStack(
      Builder recipe,
      Backend storage,
      Backend transport,
      Backend head,
      AdmissionReceipts receipts,
      @Nullable Leases leases,
      boolean ownsLeases,
      List<String> layers) {
    this.recipe = recipe;
    this.storage = storage;
    this.transport = transport;
    this.head = head;
    this.receipts = receipts;
    this.leases = leases;
    this.ownsLeases = ownsLeases;
    this.layers = List.copyOf(layers);
  }

  /** A stack over {@code storage}, with no layer until one is asked for. */
  public static Builder over(Backend storage) {
    return new Builder(storage);
  }

  /**
   * The same storage and the same leases (one holder per runtime, whichever stack answers from it),
   * to add or change layers: how a client puts its layers in front of the limiter it wraps.
   */
  public Builder toBuilder() {
    Builder builder = recipe.copy();
    builder.sharedLeases = leases;
    return builder;
  }

  /** The outermost layer: where the pipeline sends its commands. */
  public Backend head() {
    return head;
  }

  /** Batching over the storage (or the storage): what commands travel by, below the answers. */
  public Backend transport() {
    return transport;
  }

  /** Where key states live: the grid, or this JVM. */
  public Backend storage() {
    return storage;
  }

  /** Who gives this stack's admissions their receipts, sealed with the storage's key. */
  AdmissionReceipts receipts() {
    return receipts;
  }

  /** The layers from the head down, the storage last, as built ({@link Position#label()}). */
  public List<String> layers() {
    return layers;
  }

  /** What the leases of this stack did, or null if it holds none. */
  public LeaseHolder.@Nullable Statistics leaseStatistics() {
    return leases == null ? null : leases.holder.statistics();
  }

  /**
   * Gives back, now, the leases that have ended (what the periodic sweep does, {@link
   * Builder#leaseReturnsByHand}); nothing without leases.
   */
  public void sweepLeases() {
    if (leases != null) {
      leases.returns.sweep();
    }
  }

  /**
   * Gives every lease back to its owner and asks for none from now on, if this stack made the lease
   * holder; one that shares another's leaves them to it. Call it while the transport still works.
   */
  public void close() {
    if (ownsLeases && leases != null) {
      leases.returns.close();
    }
  }

  /** Chooses the layers; {@link #build} puts them in their order. */
  public static final class Builder {
    private final Backend storage;
    private @Nullable LongSupplier leaseClock;
    private LeasePolicy.Factory leasePolicy = LeasePolicy.DEFAULT;
    private boolean periodicLeaseReturns = true;
    private @Nullable Leases sharedLeases;
    private @Nullable Layer deniedCache;
    private @Nullable Layer failurePolicy;
    private boolean batching;
    private BatchingBackend.@Nullable Lanes lanes;
    private BatchingBackend.SyncCalls syncCalls = BatchingBackend.SyncCalls.DIRECT;
    private boolean asyncLanes = true;
    private int maxKeysPerBatch = 256;

    private Builder(Backend storage) {
      this.storage = Objects.requireNonNull(storage, "storage");
    }

    private Builder copy() {
      Builder copy = new Builder(storage);
      copy.leaseClock = leaseClock;
      copy.leasePolicy = leasePolicy;
      copy.periodicLeaseReturns = periodicLeaseReturns;
      copy.deniedCache = deniedCache;
      copy.failurePolicy = failurePolicy;
      copy.batching = batching;
      copy.lanes = lanes;
      copy.syncCalls = syncCalls;
      copy.asyncLanes = asyncLanes;
      copy.maxKeysPerBatch = maxKeysPerBatch;
      return copy;
    }

    /**
     * Leases held on {@code clock}, this JVM's monotonic clock ({@code System::nanoTime}, or the
     * manual clock a test's grid decides on); null: none asked for.
     */
    public Builder leases(@Nullable LongSupplier clock) {
      return leases(clock, LeasePolicy.DEFAULT);
    }

    /** Leases held on {@code clock}, asked for as {@code policy} decides; null clock: none. */
    public Builder leases(@Nullable LongSupplier clock, LeasePolicy.Factory policy) {
      this.leaseClock = clock;
      this.leasePolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Ended leases go back only when {@link BackendStack#sweepLeases} is called, not every {@value
     * LeaseReturns#PERIOD_MILLIS} ms on the JVM's sweeper thread: for a caller that runs on a clock
     * of its own (the lease-policy simulator's virtual one).
     */
    public Builder leaseReturnsByHand() {
      this.periodicLeaseReturns = false;
      return this;
    }

    /** The denied-until cache; null: none. */
    public Builder deniedCache(@Nullable Layer layer) {
      this.deniedCache = layer;
      return this;
    }

    /** The failure policy; null: none. */
    public Builder failurePolicy(@Nullable Layer layer) {
      this.failurePolicy = layer;
      return this;
    }

    /**
     * Batching ({@link BatchingBackend}).
     *
     * @param lanes where commands meet; null: one lane
     * @param asyncLanes whether asynchronous calls and batches go through the lanes
     */
    public Builder batching(
        BatchingBackend.@Nullable Lanes lanes,
        BatchingBackend.SyncCalls syncCalls,
        boolean asyncLanes,
        int maxKeysPerBatch) {
      this.batching = true;
      this.lanes = lanes;
      this.syncCalls = Objects.requireNonNull(syncCalls, "syncCalls");
      this.asyncLanes = asyncLanes;
      this.maxKeysPerBatch = maxKeysPerBatch;
      return this;
    }

    /**
     * How synchronous calls travel. A stack without batching gets it, with one lane that
     * asynchronous calls take too: concurrent calls on a key leave together however they came.
     */
    public Builder syncCalls(BatchingBackend.SyncCalls calls) {
      if (!batching) {
        return batching(null, calls, true, maxKeysPerBatch);
      }
      this.syncCalls = Objects.requireNonNull(calls, "syncCalls");
      return this;
    }

    /** The layers asked for, innermost first, so that they stand in {@link Position}'s order. */
    public BackendStack build() {
      List<String> names = new ArrayList<>();
      names.add(STORAGE);
      Backend transport = storage;
      if (batching) {
        transport = new BatchingBackend(storage, lanes, syncCalls, asyncLanes, maxKeysPerBatch);
        names.add(0, Position.BATCHING.label());
      }
      AdmissionReceipts receipts = new AdmissionReceipts(storage);
      Leases held = sharedLeases;
      boolean owns = false;
      if (held == null && leaseClock != null) {
        LeaseHolder holder = new LeaseHolder(leaseClock, leasePolicy, transport, receipts);
        held = new Leases(holder, new LeaseReturns(holder, periodicLeaseReturns));
        owns = true;
      }
      Backend head = transport;
      if (held != null) {
        head = new LeaseAsks(head, held.holder);
        names.add(0, Position.LEASE_ASKS.label());
      }
      if (failurePolicy != null) {
        head = failurePolicy.over(head);
        names.add(0, Position.FAILURE_POLICY.label());
      }
      if (deniedCache != null) {
        head = deniedCache.over(head);
        names.add(0, Position.DENIED_CACHE.label());
      }
      if (held != null) {
        head = new LeaseAnswers(head, held.holder);
        names.add(0, Position.LEASE_ANSWERS.label());
      }
      return new BackendStack(this, storage, transport, head, receipts, held, owns, names);
    }
  }

  /** A lease holder and what gives its leases back. */
  private record Leases(LeaseHolder holder, LeaseReturns returns) {}
}
