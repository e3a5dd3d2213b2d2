package dev.sluice.core.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BatchingBackend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.backend.DeadlineExceededException;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.member.Decider;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.member.PeekProcessor;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.rules.RuleCache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The grid runtime: key states in the partitioned map {@value GridNames#STATE_MAP}, each command
 * one {@link DecideProcessor} (or, all peeks, one {@link PeekProcessor}) on the member that owns
 * the key, sent through a {@link GridTransport}: on the caller's thread when synchronous, with at
 * most its deadline's time left.
 *
 * <p>It is also where commands meet ({@link BatchingBackend.Lanes}): a few lanes per owning member
 * ({@link GridRateLimiter.Options#lanesPerMember()}, a key always in the same one), each batch one
 * invocation to its owner ({@link GridTransport#deliver}). The batching layer in front of it
 * decides which calls wait for a lane.
 *
 * <p>Asynchronous answers complete on Hazelcast's default async executor, never on its partition or
 * network threads (docs/grid.md); a batch on the executor its lane names (where its first caller
 * takes its answer, {@link dev.sluice.core.backend.AnswerExecutor}).
 */
public final class GridBackend implements Backend, BatchingBackend.Lanes {
  private static final UUID UNKNOWN_OWNER = new UUID(0, 0);

  private final HazelcastInstance hazelcast;
  private final GridWiring wiring;
  private final RuleStore rules;
  private final @Nullable MemberContext localMember;
  private final GridRateLimiter.Options options;
  private final Executor callbacks;

  /**
   * The rules a member of this region answered are global ({@link Decider#GLOBAL_IN_REGION}): a
   * client sends their checks to the regional budget from then on.
   */
  private final Set<String> globalRules = ConcurrentHashMap.newKeySet();

  /**
   * The rules as a client sees them, fed by the cluster's rule events once followed ({@link
   * #ruleCache}): on a client what {@link #rules()} answers and batches are validated with; on a
   * member (whose own copy answers both) what a {@code SluiceClient} wrapping it reads. Inline
   * policies compile here on both.
   */
  private final RuleCache ruleCache;

  private final AtomicBoolean followingRules = new AtomicBoolean();
  private final CompletableFuture<Void> rulesCopied = new CompletableFuture<>();
  private volatile @Nullable Runnable unfollowRules;
  private volatile boolean closed;

  /**
   * Over a member, ready at once; over a Hazelcast client, also before it has reached the cluster:
   * calls fail fast until it has ({@link GridWiring}).
   */
  GridBackend(HazelcastInstance hazelcast, GridRateLimiter.Options options) {
    this.hazelcast = hazelcast;
    this.options = options;
    this.callbacks = GridTransport.callbacks();
    this.wiring = new GridWiring(hazelcast, options);
    this.localMember = GridWiring.isMember(hazelcast) ? MemberContext.of(hazelcast) : null;
    GridRuleStore store = new GridRuleStore(hazelcast, () -> wiring.get().rules(), localMember);
    this.ruleCache = new RuleCache(store, System::nanoTime);
    this.rules = localMember != null ? store : ruleCache;
    if (localMember == null) {
      followRuleChanges();
    }
  }

  /**
   * The one copy of the rules a client of this runtime reads ({@link RuleCache}), following the
   * cluster's rule changes from the first call on.
   */
  RuleCache ruleCache() {
    followRuleChanges();
    return ruleCache;
  }

  /**
   * Completes once the rule cache follows the cluster's rule changes and has read every rule (or
   * tried to: the grid may be gone again), on a client after its first contact with the cluster.
   */
  CompletableFuture<Void> rulesCopied() {
    followRuleChanges();
    return rulesCopied;
  }

  /**
   * Once: when the grid can first be reached, subscribes the cache to the rule events and reads
   * every rule into it, on a thread of its own (both are calls to the cluster).
   */
  private void followRuleChanges() {
    if (!followingRules.compareAndSet(false, true)) {
      return;
    }
    wiring
        .ready()
        .thenRunAsync(
            () -> {
              if (closed) {
                rulesCopied.complete(null);
                return;
              }
              try {
                unfollowRules = RuleEvents.subscribe(hazelcast, ruleCache);
              } catch (RuntimeException e) {
                // Lost again before the subscription was made: the copies' half-second refresh
                // covers changes until then (Hazelcast re-registers listeners on reconnection).
              }
              try {
                ruleCache.all();
              } catch (RuntimeException e) {
                // The grid went away again: lookups read what they need when it is back.
              }
              rulesCopied.complete(null);
            },
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-rules-follow");
              thread.setDaemon(true);
              thread.start();
            });
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
    Runnable unfollow = unfollowRules;
    if (unfollow != null) {
      unfollow.run();
    }
    ruleCache.close();
    wiring.close();
  }

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    try {
      return decide(command, deadline);
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  private KeyOutcome decide(KeyCommand command, Deadline deadline) {
    GridTransport transport = transport();
    refuseTooBig(command);
    if (regional(command)) {
      return deadline.await(viaRegion(command));
    }
    KeyOutcome outcome;
    try {
      outcome =
          deadline.bounded()
              ? transport.invoke(command.stateKey(), processor(command), deadline.leftNanos())
              : transport.invoke(command.stateKey(), processor(command));
    } catch (TimeoutException e) {
      throw new DeadlineExceededException(e);
    }
    return globalInRegion(outcome) ? deadline.await(learnGlobal(command)) : outcome;
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    try {
      return GridOutages.translated(decideAsync(command));
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  private CompletableFuture<KeyOutcome> decideAsync(KeyCommand command) {
    GridTransport transport = transport();
    refuseTooBig(command);
    return regional(command) ? viaRegion(command) : invokeAsync(transport, command);
  }

  /** The entry processor that decides {@code command}: a read-only one for peeks. */
  private static EntryProcessor<String, StateValue, KeyOutcome> processor(KeyCommand command) {
    return command.readOnly() ? new PeekProcessor(command) : new DecideProcessor(command);
  }

  /**
   * {@code command} sent to its key's owner, and on to the region if it says the rule is global.
   */
  private CompletableFuture<KeyOutcome> invokeAsync(GridTransport transport, KeyCommand command) {
    CompletableFuture<KeyOutcome> answer =
        transport.invokeAsync(command.stateKey(), processor(command));
    return command.readOnly() ? answer : rerouted(command, answer);
  }

  /** Each command its own invocation; the batching layer in front sends batches per owner. */
  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    try {
      GridTransport transport = transport();
      List<CompletableFuture<KeyOutcome>> answers = new ArrayList<>(commands.size());
      for (KeyCommand command : commands) {
        answers.add(regional(command) ? viaRegion(command) : invokeAsync(transport, command));
      }
      return GridOutages.translated(Futures.all(answers));
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
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

  /**
   * A cost above the capacity of a policy known here is refused before anything is sent; where the
   * policy is not known here, the owner refuses it, atomically.
   */
  private void refuseTooBig(KeyCommand command) {
    CompiledPolicy policy = policyOf(command.ref(), false);
    if (policy != null) {
      policy.checkCosts(command);
    }
  }

  /** Reads the rule first where the rules are elsewhere (a client): a typo is an error here too. */
  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    checkOpen();
    return GridOutages.translated(
        fetchRules(ref instanceof PolicyRef.Named named ? Set.of(named.rule()) : Set.of(), deadline)
            .thenCompose(
                known -> {
                  if (policyOf(ref, true) == null && ref instanceof PolicyRef.Named named) {
                    throw new UnknownRuleException(named.rule());
                  }
                  return wiring.get().states().deleteAsync(stateKey).toCompletableFuture();
                })
            .thenApply(gone -> null));
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /** The cluster's, shared by every member and client ({@link ClusterReceiptKey}). */
  @Override
  public ReceiptKey receiptKey() {
    checkOpen();
    try {
      return wiring.get().receiptKey().current();
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  @Override
  public boolean issuedHere(Receipt receipt) {
    checkOpen();
    try {
      return wiring.get().receiptKey().issuedHere(receipt);
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  /**
   * Inline policies compile here. A named rule resolves from a member's local copy once it is
   * loaded; a client resolves a rule (with {@code fetched}) only from its copies ({@link
   * RuleCache}), which {@link #fetchRules} brings for its batches.
   */
  @Override
  public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
    if (ref instanceof PolicyRef.Inline) {
      return ruleCache.resolve(ref);
    }
    MemberContext member = localMember;
    if (member != null) {
      return member.rulesLoaded() ? member.rules().resolve(ref) : null;
    }
    return fetched ? ruleCache.resolve(ref) : null;
  }

  /** A member's copy moves with each rule it applies; a client's with each read that differs. */
  @Override
  public long rulesVersion() {
    MemberContext member = localMember;
    return member != null ? member.rulesVersion() : ruleCache.version();
  }

  /**
   * A member has its rules here; a client reads those it has no current copy of ({@link
   * RuleCache}).
   */
  @Override
  public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
    checkOpen();
    return localMember != null || names.isEmpty() ? DONE : ruleCache.fetch(names);
  }

  /** One lane of one owning member: a key always travels in the same one. */
  private record OwnerLane(UUID owner, int index) {}

  /**
   * A closed backend refuses a command here already: its caller learns it at once. A global rule's
   * check in a region travels on its own ({@link #viaRegion}): its answer may wait on home, and
   * must not hold up a lane's other keys.
   */
  @Override
  public @Nullable Object laneOf(KeyCommand command) {
    checkOpen();
    if (regional(command)) {
      return null;
    }
    try {
      int partition = partitionOf(command);
      Member owner = wiring.get().partitionsById()[partition].getOwner();
      return new OwnerLane(
          owner == null ? UNKNOWN_OWNER : owner.getUuid(), partition % options.lanesPerMember());
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  @Override
  public CompletionStage<Map<String, KeyOutcome>> send(
      Object lane, KeyCommand[] batch, Executor completions) {
    try {
      int[] partitions = new int[batch.length];
      for (int i = 0; i < batch.length; i++) {
        partitions[i] = partitionOf(batch[i]);
      }
      return GridOutages.translated(
          transport()
              .deliver(
                  ((OwnerLane) lane).owner(), new DecideProcessor(batch, partitions), completions)
              .thenCompose(outcomes -> reroutedAll(batch, outcomes))
              .toCompletableFuture());
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  /**
   * {@code outcomes}, with each key that a region's member refused as global ({@link
   * Decider#GLOBAL_IN_REGION}) sent again to its regional budget: the batch completes once those
   * answered too.
   */
  private CompletionStage<Map<String, KeyOutcome>> reroutedAll(
      KeyCommand[] batch, Map<String, KeyOutcome> outcomes) {
    List<KeyCommand> global = new ArrayList<>(0);
    List<CompletableFuture<KeyOutcome>> again = new ArrayList<>(0);
    for (KeyCommand command : batch) {
      KeyOutcome outcome = outcomes.get(command.stateKey());
      if (outcome != null && globalInRegion(outcome)) {
        global.add(command);
        again.add(learnGlobal(command));
      }
    }
    if (again.isEmpty()) {
      return CompletableFuture.completedFuture(outcomes);
    }
    return Futures.all(again)
        .thenApply(
            answers -> {
              Map<String, KeyOutcome> all = new HashMap<>(outcomes);
              for (int i = 0; i < global.size(); i++) {
                all.put(global.get(i).stateKey(), answers.get(i));
              }
              return all;
            });
  }

  @Override
  public Executor callbacks() {
    return callbacks;
  }

  private int partitionOf(KeyCommand command) {
    return hazelcast.getPartitionService().getPartition(command.stateKey()).getPartitionId();
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
