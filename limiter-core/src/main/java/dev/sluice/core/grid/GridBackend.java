package dev.sluice.core.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.grid.transport.OwnerBatcher;
import dev.sluice.core.grid.transport.OwnerBatcher.Pending;
import dev.sluice.core.pipeline.Backend;
import dev.sluice.core.pipeline.CompiledPolicy;
import dev.sluice.core.pipeline.Futures;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The grid runtime: key states in the partitioned map {@value SluiceHazelcast#STATE_MAP}, each
 * command one {@link DecideProcessor} (or, all peeks, one {@link PeekProcessor}) on the member that
 * owns the key, sent through a {@link GridTransport}.
 *
 * <h2>How commands travel</h2>
 *
 * Batched commands ({@link GridRateLimiter.Options#batchAsync()}, on by default for asynchronous
 * calls and batches; {@link GridRateLimiter.Options#batchSync()} for synchronous ones) go through
 * an {@link OwnerBatcher} per owning member and lane: while a lane's invocation is in flight new
 * commands queue, and when it returns they leave together, each key in one atomic step, so a batch
 * is grouped by owner and the owners run in parallel. Unbatched, each command is its own
 * invocation: on the caller's thread when synchronous.
 *
 * <p>Asynchronous answers complete on Hazelcast's default async executor, never on its partition or
 * network threads (docs/grid.md).
 */
final class GridBackend implements Backend {
  private static final UUID UNKNOWN_OWNER = new UUID(0, 0);

  private final HazelcastInstance hazelcast;
  private final GridWiring wiring;
  private final GridRuleStore rules;
  private final @Nullable MemberContext localMember;
  private final GridRateLimiter.Options options;
  private final Executor callbacks;
  private final ConcurrentHashMap<UUID, OwnerBatcher[]> batchers = new ConcurrentHashMap<>();

  /**
   * The rules a member of this region answered are global ({@link Decider#GLOBAL_IN_REGION}): a
   * client sends their checks to the regional budget from then on.
   */
  private final Set<String> globalRules = ConcurrentHashMap.newKeySet();

  /** Inline policies compiled here, and on a client the rules it read for batch checks. */
  private final FetchedRules fetchedRules;

  private volatile boolean closed;

  /**
   * Over a member, ready at once; over a Hazelcast client, also before it has reached the cluster:
   * calls fail fast until it has ({@link GridWiring}).
   */
  GridBackend(HazelcastInstance hazelcast, GridRateLimiter.Options options) {
    this.hazelcast = hazelcast;
    this.options = options;
    this.callbacks = GridTransport.callbacks();
    this.wiring = new GridWiring(hazelcast, options, callbacks);
    this.localMember = GridWiring.isMember(hazelcast) ? MemberContext.of(hazelcast) : null;
    this.rules = new GridRuleStore(hazelcast, () -> wiring.get().rules(), localMember);
    this.fetchedRules = new FetchedRules(() -> wiring.get().rules(), callbacks, System::nanoTime);
  }

  HazelcastInstance hazelcast() {
    return hazelcast;
  }

  /** Completes once the grid's objects exist: at once on a member, on first contact on a client. */
  CompletableFuture<Void> ready() {
    return wiring.ready();
  }

  /** The local member's count, where this backend runs on a member: it stores the keys it owns. */
  @Override
  public @Nullable LongSupplier reservationsSettledAtEstimate() {
    MemberContext member = localMember;
    return member == null ? null : member::reservationsSettledAtEstimate;
  }

  int stateCount() {
    return wiring.get().states().size();
  }

  void close() {
    closed = true;
    wiring.close();
  }

  @Override
  public KeyOutcome execute(KeyCommand command) {
    GridTransport transport = transport();
    if (regional(command)) {
      return Futures.await(viaRegion(command));
    }
    if (command.readOnly()) {
      return transport.invoke(command.stateKey(), new PeekProcessor(command));
    }
    if (options.batchSync()) {
      Pending pending = new Pending(command, partitionOf(command));
      batcherFor(pending).submit(pending);
      return Futures.await(rerouted(command, pending.answer()));
    }
    KeyOutcome outcome = transport.invoke(command.stateKey(), new DecideProcessor(command));
    return globalInRegion(outcome) ? Futures.await(learnGlobal(command)) : outcome;
  }

  @Override
  public KeyOutcome execute(KeyCommand command, long timeoutNanos) throws TimeoutException {
    GridTransport transport = transport();
    if (regional(command)) {
      return Futures.awaitWithin(viaRegion(command), timeoutNanos);
    }
    long sentAt = System.nanoTime();
    KeyOutcome outcome =
        command.readOnly()
            ? transport.invoke(command.stateKey(), new PeekProcessor(command), timeoutNanos)
            : transport.invoke(command.stateKey(), new DecideProcessor(command), timeoutNanos);
    if (globalInRegion(outcome)) {
      return Futures.awaitWithin(
          learnGlobal(command), Math.max(1, timeoutNanos - (System.nanoTime() - sentAt)));
    }
    return outcome;
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command) {
    GridTransport transport = transport();
    if (regional(command)) {
      return viaRegion(command);
    }
    if (command.readOnly()) {
      return transport.invokeAsync(command.stateKey(), new PeekProcessor(command));
    }
    if (options.batchAsync()) {
      Pending pending = new Pending(command, partitionOf(command));
      batcherFor(pending).submit(pending);
      return rerouted(command, pending.answer());
    }
    return rerouted(
        command, transport.invokeAsync(command.stateKey(), new DecideProcessor(command)));
  }

  /**
   * Whether {@code command} is a check of a global rule in a region: on a member, whether this
   * member is linked to home and its copy of the rule says global; on a client, whether a member
   * said so before ({@link #learnGlobal}).
   */
  private boolean regional(KeyCommand command) {
    if (!(command.ref() instanceof PolicyRef.Named named)) {
      return false;
    }
    MemberContext member = localMember;
    if (member != null) {
      if (member.region() == null || !member.rulesLoaded()) {
        return false;
      }
      try {
        return member.rules().resolve(command.ref()).policy().global();
      } catch (RuntimeException e) {
        return false; // the owner says what is wrong
      }
    }
    return globalRules.contains(named.rule());
  }

  /**
   * Sends a global rule's check to the key's owner in the region ({@link RegionDecideTask}), where
   * the region's budget for the key is held.
   */
  private CompletableFuture<KeyOutcome> viaRegion(KeyCommand command) {
    checkOpen();
    CompletableFuture<KeyOutcome> answer = new CompletableFuture<>();
    try {
      hazelcast
          .getExecutorService(RegionLink.EXECUTOR)
          .submitToKeyOwner(
              new RegionDecideTask(command),
              command.stateKey(),
              new ExecutionCallback<KeyOutcome>() {
                @Override
                public void onResponse(KeyOutcome response) {
                  callbacks.execute(() -> answer.complete(response));
                }

                @Override
                public void onFailure(Throwable t) {
                  callbacks.execute(() -> answer.completeExceptionally(t));
                }
              });
    } catch (RuntimeException e) {
      answer.completeExceptionally(e);
    }
    return answer;
  }

  /** Whether a region's member answered that the rule is global ({@link Decider}). */
  private static boolean globalInRegion(KeyOutcome outcome) {
    return outcome.size() > 0
        && outcome.code(0) == KeyOutcome.Code.INVALID
        && Decider.GLOBAL_IN_REGION.equals(outcome.subject(0));
  }

  /** Remembers that the command's rule is global in this region, and sends it there. */
  private CompletableFuture<KeyOutcome> learnGlobal(KeyCommand command) {
    if (command.ref() instanceof PolicyRef.Named named) {
      globalRules.add(named.rule());
    }
    return viaRegion(command);
  }

  private CompletableFuture<KeyOutcome> rerouted(
      KeyCommand command, CompletableFuture<KeyOutcome> answer) {
    return answer.thenCompose(
        outcome ->
            globalInRegion(outcome)
                ? learnGlobal(command)
                : CompletableFuture.completedFuture(outcome));
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(List<KeyCommand> commands) {
    GridTransport transport = transport();
    List<CompletableFuture<KeyOutcome>> answers = new ArrayList<>(commands.size());
    if (options.batchAsync()) {
      // Group per lane so each lane gets its share in one go (and in order).
      Map<OwnerBatcher, List<Pending>> byLane = new LinkedHashMap<>();
      for (KeyCommand command : commands) {
        if (regional(command)) {
          answers.add(viaRegion(command));
          continue;
        }
        Pending pending = new Pending(command, partitionOf(command));
        answers.add(rerouted(command, pending.answer()));
        byLane.computeIfAbsent(batcherFor(pending), lane -> new ArrayList<>()).add(pending);
      }
      byLane.forEach(OwnerBatcher::submitAll);
    } else {
      for (KeyCommand command : commands) {
        answers.add(
            regional(command)
                ? viaRegion(command)
                : command.readOnly()
                    ? transport.invokeAsync(command.stateKey(), new PeekProcessor(command))
                    : rerouted(
                        command,
                        transport.invokeAsync(command.stateKey(), new DecideProcessor(command))));
      }
    }
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            ignored -> {
              List<KeyOutcome> outcomes = new ArrayList<>(answers.size());
              for (CompletableFuture<KeyOutcome> answer : answers) {
                outcomes.add(answer.join());
              }
              return outcomes;
            });
  }

  @Override
  public CompletableFuture<Void> reset(String stateKey) {
    checkOpen();
    return wiring
        .get()
        .states()
        .deleteAsync(stateKey)
        .toCompletableFuture()
        .thenApply(gone -> null);
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /** The cluster's, shared by every member and client ({@link ClusterReceiptKey}). */
  @Override
  public ReceiptKey receiptKey() {
    checkOpen();
    return wiring.get().receiptKey().current();
  }

  @Override
  public boolean issuedHere(Receipt receipt) {
    checkOpen();
    return wiring.get().receiptKey().issuedHere(receipt);
  }

  /**
   * Inline policies compile here. A named rule resolves from a member's local copy once it is
   * loaded; a client holds no copy, and resolves a rule (with {@code fetched}) only from what
   * {@link #fetchRules} read for its batches.
   */
  @Override
  public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
    if (ref instanceof PolicyRef.Inline) {
      return fetchedRules.resolve(ref);
    }
    MemberContext member = localMember;
    if (member != null) {
      return member.rulesLoaded() ? member.rules().resolve(ref) : null;
    }
    return fetched ? fetchedRules.resolve(ref) : null;
  }

  /**
   * A member has its rules here; a client reads them, at most once a second ({@link FetchedRules}).
   */
  @Override
  public CompletableFuture<Void> fetchRules(Set<String> names) {
    checkOpen();
    return localMember != null || names.isEmpty() ? DONE : fetchedRules.fetch(names);
  }

  private int partitionOf(KeyCommand command) {
    return hazelcast.getPartitionService().getPartition(command.stateKey()).getPartitionId();
  }

  private OwnerBatcher batcherFor(Pending pending) {
    GridTransport transport = wiring.get().transport();
    Member owner = wiring.get().partitionsById()[pending.partitionId()].getOwner();
    UUID ownerId = owner == null ? UNKNOWN_OWNER : owner.getUuid();
    OwnerBatcher[] lanes =
        batchers.computeIfAbsent(
            ownerId,
            id -> {
              OwnerBatcher[] created = new OwnerBatcher[options.lanesPerMember()];
              for (int i = 0; i < created.length; i++) {
                created[i] =
                    new OwnerBatcher(
                        batch -> transport.deliver(id, batch),
                        callbacks,
                        options.maxKeysPerBatch());
              }
              return created;
            });
    return lanes[pending.partitionId() % lanes.length];
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this GridRateLimiter was closed");
    }
  }

  /** The transport, once this backend's grid objects exist; fails fast before. */
  private GridTransport transport() {
    checkOpen();
    return wiring.get().transport();
  }

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
}
