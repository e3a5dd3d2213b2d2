package dev.sluice.core.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.grid.transport.GridTransport;
import dev.sluice.core.grid.transport.OwnerBatcher;
import dev.sluice.core.grid.transport.OwnerBatcher.Pending;
import dev.sluice.core.pipeline.Backend;
import dev.sluice.core.pipeline.CompiledPolicy;
import dev.sluice.core.pipeline.Futures;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOutcome;
import dev.sluice.core.pipeline.RuleBook;
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
  /**
   * How long a rule a client read to check a batch is trusted. A batch from a client checks its
   * named rules before sending anything, so that a batch with an unknown rule or an impossible cost
   * fails whole; reading them for every batch cost a round trip per batch, which halved the client
   * SDK's hot-key throughput. A rule removed within this second is still caught by the owner, which
   * answers "unknown rule".
   */
  private static final long RULE_CHECK_FRESH_NANOS = 1_000_000_000L;

  private static final UUID UNKNOWN_OWNER = new UUID(0, 0);

  private final HazelcastInstance hazelcast;
  private final IMap<String, StateValue> states;
  private final Partition[] partitionsById;
  private final GridRuleStore rules;
  private final @Nullable MemberContext localMember;
  private final GridTransport transport;
  private final GridRateLimiter.Options options;
  private final Executor callbacks;
  private final ConcurrentHashMap<UUID, OwnerBatcher[]> batchers = new ConcurrentHashMap<>();

  /** Inline policies compiled here, and on a client the rules it read for batch checks. */
  private final RuleBook clientRules;

  private final ConcurrentHashMap<String, FetchedRule> fetchedRules = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private record FetchedRule(@Nullable RuleRecord record, long fetchedAtNanos) {}

  GridBackend(HazelcastInstance hazelcast, GridRateLimiter.Options options) {
    this.hazelcast = hazelcast;
    this.options = options;
    this.states = hazelcast.getMap(SluiceHazelcast.STATE_MAP);
    List<Partition> all = new ArrayList<>(hazelcast.getPartitionService().getPartitions());
    this.partitionsById = new Partition[all.size()];
    for (Partition partition : all) {
      partitionsById[partition.getPartitionId()] = partition;
    }
    this.rules = new GridRuleStore(hazelcast);
    this.localMember =
        hazelcast.getLocalEndpoint() instanceof Member ? MemberContext.of(hazelcast) : null;
    this.callbacks = GridTransport.callbacks();
    this.transport =
        GridTransport.of(options.transport(), hazelcast, SluiceHazelcast.STATE_MAP, callbacks);
    this.clientRules =
        new RuleBook(
            name -> {
              FetchedRule fetched = fetchedRules.get(name);
              return fetched == null || fetched.record() == null ? null : fetched.record().policy();
            });
  }

  HazelcastInstance hazelcast() {
    return hazelcast;
  }

  int stateCount() {
    return states.size();
  }

  void close() {
    closed = true;
  }

  @Override
  public KeyOutcome execute(KeyCommand command) {
    checkOpen();
    if (command.readOnly()) {
      return transport.invoke(command.stateKey(), new PeekProcessor(command));
    }
    if (options.batchSync()) {
      Pending pending = new Pending(command, partitionOf(command));
      batcherFor(pending).submit(pending);
      return Futures.await(pending.answer());
    }
    return transport.invoke(command.stateKey(), new DecideProcessor(command));
  }

  @Override
  public KeyOutcome execute(KeyCommand command, long timeoutNanos) throws TimeoutException {
    checkOpen();
    return command.readOnly()
        ? transport.invoke(command.stateKey(), new PeekProcessor(command), timeoutNanos)
        : transport.invoke(command.stateKey(), new DecideProcessor(command), timeoutNanos);
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command) {
    checkOpen();
    if (command.readOnly()) {
      return transport.invokeAsync(command.stateKey(), new PeekProcessor(command));
    }
    if (options.batchAsync()) {
      Pending pending = new Pending(command, partitionOf(command));
      batcherFor(pending).submit(pending);
      return pending.answer();
    }
    return transport.invokeAsync(command.stateKey(), new DecideProcessor(command));
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(List<KeyCommand> commands) {
    checkOpen();
    List<CompletableFuture<KeyOutcome>> answers = new ArrayList<>(commands.size());
    if (options.batchAsync()) {
      // Group per lane so each lane gets its share in one go (and in order).
      Map<OwnerBatcher, List<Pending>> byLane = new LinkedHashMap<>();
      for (KeyCommand command : commands) {
        Pending pending = new Pending(command, partitionOf(command));
        answers.add(pending.answer());
        byLane.computeIfAbsent(batcherFor(pending), lane -> new ArrayList<>()).add(pending);
      }
      byLane.forEach(OwnerBatcher::submitAll);
    } else {
      for (KeyCommand command : commands) {
        answers.add(
            command.readOnly()
                ? transport.invokeAsync(command.stateKey(), new PeekProcessor(command))
                : transport.invokeAsync(command.stateKey(), new DecideProcessor(command)));
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
  public void reset(String stateKey) {
    checkOpen();
    states.delete(stateKey);
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /**
   * Inline policies compile here. A named rule resolves from a member's local copy once it is
   * loaded; a client holds no copy, and reads the rule (at most once a second per rule) only when
   * asked to {@code fetch}: for batches, which must fail whole before anything is counted.
   */
  @Override
  public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetch) {
    if (ref instanceof PolicyRef.Inline) {
      return clientRules.resolve(ref);
    }
    MemberContext member = localMember;
    if (member != null) {
      return member.rulesLoaded() ? member.rules().resolve(ref) : null;
    }
    if (!fetch) {
      return null;
    }
    String name = ((PolicyRef.Named) ref).rule();
    FetchedRule fetched = fetchedRules.get(name);
    long now = System.nanoTime();
    if (fetched == null || now - fetched.fetchedAtNanos() > RULE_CHECK_FRESH_NANOS) {
      RuleRecord record = rules.records(Set.of(name)).get(name);
      if (fetchedRules.size() > 10_000) {
        fetchedRules.clear();
      }
      fetchedRules.put(
          name, new FetchedRule(record == null || record.isRemoved() ? null : record, now));
    }
    try {
      return clientRules.resolve(ref);
    } catch (UnknownRuleException e) {
      // Not kept as known-absent: a rule created a moment later must be seen at once.
      fetchedRules.remove(name);
      throw e;
    }
  }

  private int partitionOf(KeyCommand command) {
    return hazelcast.getPartitionService().getPartition(command.stateKey()).getPartitionId();
  }

  private OwnerBatcher batcherFor(Pending pending) {
    Member owner = partitionsById[pending.partitionId()].getOwner();
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
}
