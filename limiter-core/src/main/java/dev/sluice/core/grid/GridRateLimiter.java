package dev.sluice.core.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimiter} of a Sluice grid, over any {@link HazelcastInstance}: an embedded member
 * or a client, the same class. Every decision runs as an {@link AcquireProcessor} on the member
 * that owns the key, reading that member's clock (DESIGN §3).
 *
 * <h2>How calls reach the grid</h2>
 *
 * Batched calls ({@link Options#batchAsync()}, on by default for asynchronous calls and {@code
 * tryAcquireAll}; {@link Options#batchSync()} for synchronous ones) go through an {@link
 * OwnerBatcher}: one per owning member and lane. While a lane's invocation is in flight new
 * requests queue; when it returns they leave together ({@link BatchDelivery}: from a client as one
 * Sluice batch message to the owner; from a member as one operation per key, started at once), each
 * key's requests in one atomic step, so a batch of checks is grouped by owner and the owners run in
 * parallel. A synchronous batched call simply waits for its request's answer. Unbatched, each call
 * is its own {@code executeOnKey} (sync, on the caller's thread) or {@code submitToKey}.
 *
 * <p>Asynchronous answers complete on Hazelcast's default async executor, never on its partition or
 * network threads: the common {@link java.util.concurrent.ForkJoinPool}, or on machines with 2 CPUs
 * or fewer the small pool {@link SluiceHazelcast#configure} installs in place of Hazelcast's
 * thread-per-task default (DESIGN §9). Dependent stages that callers attach without an executor run
 * there too, so keep them short. Hazelcast already completes every map future through one task on
 * that executor; a pool of this limiter's own meant a second hand-off per call, which cost 40 % of
 * asynchronous decisions per second (docs/grid.md).
 *
 * <p>{@link #close()} refuses later calls; it does not touch the Hazelcast instance, which belongs
 * to whoever started it.
 *
 * <h2>Input</h2>
 *
 * Rule names, keys and costs are checked before anything is sent: bad input is an {@link
 * InvalidPolicyException} naming the field and nothing is counted. A cost above a named rule's
 * capacity is checked on the owner (a client does not hold the rules) and nothing is counted for it
 * either.
 */
public final class GridRateLimiter implements RateLimiter, AutoCloseable {

  /**
   * Tuning. The defaults are what measured fastest on a 2-core machine (docs/grid.md): synchronous
   * calls go straight to the owner ({@code executeOnKey} on the caller's thread: the fewest thread
   * hand-offs), asynchronous calls and batches go through the per-owner batchers (one invocation
   * for many requests).
   *
   * @param batchSync send synchronous acquires through the batchers (the caller waits)
   * @param batchAsync send asynchronous acquires and {@code tryAcquireAll} through the batchers;
   *     when false every key is its own {@code submitToKey}
   * @param lanesPerMember concurrent batches per member; a key always uses the same lane
   * @param maxKeysPerBatch the most keys one invocation carries
   */
  public record Options(
      boolean batchSync, boolean batchAsync, int lanesPerMember, int maxKeysPerBatch) {
    public Options {
      if (lanesPerMember < 1 || maxKeysPerBatch < 1) {
        throw new IllegalArgumentException("lanes and batch size must be at least 1");
      }
    }

    public static Options defaults() {
      return new Options(false, true, 2, 256);
    }

    /** The same options with batching on or off for every kind of call. */
    public Options withBatching(boolean batching) {
      return new Options(batching, batching, lanesPerMember, maxKeysPerBatch);
    }

    public Options withBatchSync(boolean batchSync) {
      return new Options(batchSync, batchAsync, lanesPerMember, maxKeysPerBatch);
    }

    public Options withLanesPerMember(int lanes) {
      return new Options(batchSync, batchAsync, lanes, maxKeysPerBatch);
    }
  }

  private final HazelcastInstance hazelcast;
  private final IMap<String, GridState> states;
  private final PartitionService partitions;
  private final Partition[] partitionsById;
  private final GridRuleStore rules;
  private final @Nullable MemberContext localMember;
  private final @Nullable ClientKeyInvoker clientInvoker;
  private final @Nullable ClientBatchInvoker batchInvoker;
  private final @Nullable MemberBatchDecider memberDecider;
  private final Options options;
  private final Executor callbacks;
  private volatile boolean closed;
  private final ConcurrentHashMap<UUID, OwnerBatcher[]> batchers = new ConcurrentHashMap<>();
  private static final UUID UNKNOWN_OWNER = new UUID(0, 0);

  public GridRateLimiter(HazelcastInstance hazelcast) {
    this(hazelcast, Options.defaults());
  }

  public GridRateLimiter(HazelcastInstance hazelcast, Options options) {
    this.hazelcast = hazelcast;
    this.options = options;
    this.states = hazelcast.getMap(SluiceHazelcast.STATE_MAP);
    this.partitions = hazelcast.getPartitionService();
    List<Partition> all = new ArrayList<>(partitions.getPartitions());
    this.partitionsById = new Partition[all.size()];
    for (Partition partition : all) {
      partitionsById[partition.getPartitionId()] = partition;
    }
    this.rules = new GridRuleStore(hazelcast);
    this.localMember = isClient(hazelcast) ? null : MemberContext.of(hazelcast);
    this.clientInvoker = ClientKeyInvoker.of(hazelcast, SluiceHazelcast.STATE_MAP);
    this.batchInvoker = ClientBatchInvoker.of(hazelcast, SluiceHazelcast.STATE_MAP);
    this.memberDecider = MemberBatchDecider.of(hazelcast);
    this.callbacks = AsyncCallbackExecutor.hazelcastDefault();
  }

  private static boolean isClient(HazelcastInstance hazelcast) {
    // A member's local endpoint is a Member; a client's is a Client.
    return !(hazelcast.getLocalEndpoint() instanceof Member);
  }

  public HazelcastInstance hazelcast() {
    return hazelcast;
  }

  @Override
  public Decision tryAcquire(String rule, String key, long permits) {
    checkRuleName(rule);
    StateKey.checkSubject(key);
    checkCost(permits);
    return decideNow(pending(rule, null, key, permits, options.batchSync()));
  }

  /** Rule names already checked (bounded): checking one is a regular expression match. */
  private final java.util.Set<String> checkedRuleNames = ConcurrentHashMap.newKeySet();

  private void checkRuleName(String rule) {
    if (rule != null && checkedRuleNames.contains(rule)) {
      return;
    }
    Rule.checkName(rule, "rule");
    if (checkedRuleNames.size() < 10_000) {
      checkedRuleNames.add(rule);
    }
  }

  private static void checkCost(long permits) {
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
  }

  @Override
  public Decision tryAcquire(Policy policy, String key, long permits) {
    Objects.requireNonNull(policy, "policy");
    return decideNow(pending(Check.inline(policy, key, permits), options.batchSync()));
  }

  @Override
  public CompletableFuture<Decision> tryAcquireAsync(String rule, String key, long permits) {
    checkRuleName(rule);
    StateKey.checkSubject(key);
    checkCost(permits);
    return submit(pending(rule, null, key, permits, true));
  }

  @Override
  public CompletableFuture<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    Objects.requireNonNull(policy, "policy");
    return submit(pending(Check.inline(policy, key, permits)));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return await(submitAll(checks));
  }

  @Override
  public CompletableFuture<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return submitAll(checks);
  }

  /**
   * A synchronous decision: through the batcher (the caller waits for its request's answer), or
   * without batching one {@code executeOnKey} on the caller's thread.
   */
  private Decision decideNow(Pending pending) {
    if (options.batchSync()) {
      batcherFor(pending).submit(pending);
      return await(pending.answer());
    }
    KeyRequests requests =
        new KeyRequests(
            pending.stateKey(),
            pending.partitionId(),
            pending.rule(),
            pending.policy(),
            new long[] {pending.permits()});
    KeyOutcome outcome =
        states.executeOnKey(pending.stateKey(), new AcquireProcessor(new KeyRequests[] {requests}));
    return outcome.decision(0);
  }

  /**
   * Decides {@code checks} in order, like {@link #tryAcquireAll}, but waits at most {@code timeout}
   * for the grid: the synchronous path of a client that must give up after its call timeout.
   *
   * <p>Checks that share one key (a single call, or a client's coalesced batch on a hot key) leave
   * as one {@code submitToKey}, and the caller's thread waits on the invocation's own future (over
   * a client through {@link ClientKeyInvoker}): the answer reaches the caller in one hand-off, from
   * the thread that read it off the network. Waiting on {@link #tryAcquireAllAsync} instead costs a
   * batcher and a completion task per call, which on 2 cores cost a client about a quarter of its
   * throughput (docs/benchmarks.md). Checks on several keys take the batched path.
   *
   * @throws TimeoutException if the grid did not answer in time; the checks may still be counted
   */
  public List<Decision> tryAcquireAll(List<Check> checks, Duration timeout)
      throws TimeoutException {
    Check.requireAll(checks);
    long timeoutNanos = Objects.requireNonNull(timeout, "timeout").toNanos();
    if (!oneKeyOneRequest(checks)) {
      return awaitWithin(submitAll(checks), timeoutNanos);
    }
    List<Pending> pendings = new ArrayList<>(checks.size());
    for (Check check : checks) {
      pendings.add(pending(check, false));
    }
    Pending first = pendings.get(0);
    if (localMember == null && checks.size() > 1) {
      checkRulesRemotely(checks);
    }
    long[] permits = new long[pendings.size()];
    for (int i = 0; i < permits.length; i++) {
      permits[i] = pendings.get(i).permits();
    }
    KeyRequests requests =
        new KeyRequests(first.stateKey(), -1, first.rule(), first.policy(), permits);
    AcquireProcessor processor = new AcquireProcessor(new KeyRequests[] {requests});
    KeyOutcome outcome =
        clientInvoker != null
            ? invokeWithin(first.stateKey(), processor, timeoutNanos)
            : awaitWithin(
                states.submitToKey(first.stateKey(), processor).toCompletableFuture(),
                timeoutNanos);
    List<Decision> decisions = new ArrayList<>(permits.length);
    for (int i = 0; i < permits.length; i++) {
      decisions.add(outcome.decision(i));
    }
    return decisions;
  }

  /**
   * Whether {@code checks} (at least one) can travel as one {@link KeyRequests}: one key, under one
   * rule or one inline policy.
   */
  private static boolean oneKeyOneRequest(List<Check> checks) {
    if (checks.isEmpty()) {
      return false;
    }
    Check first = checks.get(0);
    for (Check check : checks) {
      if (!check.key().equals(first.key())
          || !Objects.equals(check.rule(), first.rule())
          || !Objects.equals(check.policy(), first.policy())) {
        return false;
      }
    }
    return true;
  }

  private CompletableFuture<List<Decision>> submitAll(List<Check> checks) {
    Check.requireAll(checks);
    List<Pending> pendings = new ArrayList<>(checks.size());
    for (Check check : checks) {
      pendings.add(pending(check));
    }
    if (localMember == null && checks.size() > 1) {
      checkRulesRemotely(checks);
    }
    if (options.batchAsync()) {
      // Group per lane so each lane gets its share in one go (and in order).
      Map<OwnerBatcher, List<Pending>> byLane = new java.util.LinkedHashMap<>();
      for (Pending p : pendings) {
        byLane.computeIfAbsent(batcherFor(p), b -> new ArrayList<>()).add(p);
      }
      byLane.forEach(OwnerBatcher::submitAll);
    } else {
      Map<String, List<Pending>> byKey = new java.util.LinkedHashMap<>();
      for (Pending p : pendings) {
        byKey.computeIfAbsent(p.stateKey(), k -> new ArrayList<>()).add(p);
      }
      sendDirect(byKey);
    }
    CompletableFuture<?>[] answers = new CompletableFuture<?>[pendings.size()];
    for (int i = 0; i < answers.length; i++) {
      answers[i] = pendings.get(i).answer();
    }
    return CompletableFuture.allOf(answers)
        .thenApply(
            ignored -> {
              List<Decision> decisions = new ArrayList<>(pendings.size());
              for (Pending p : pendings) {
                decisions.add(p.answer().join());
              }
              return decisions;
            });
  }

  @Override
  public Decision peek(String rule, String key) {
    checkOpen();
    Rule.checkName(rule, "rule");
    StateKey.checkSubject(key);
    KeyOutcome outcome = states.executeOnKey(StateKey.of(rule, key), new PeekProcessor(rule, null));
    return outcome.decision(0);
  }

  @Override
  public void reset(String rule, String key) {
    checkOpen();
    Rule.checkName(rule, "rule");
    StateKey.checkSubject(key);
    if (rules.find(rule).isEmpty()) {
      // As every other operation (and DELETE /v1/limits): a typo must not look like a reset.
      throw new UnknownRuleException(rule);
    }
    states.delete(StateKey.of(rule, key));
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /** The number of key states held in the grid (owned entries only). */
  public int stateCount() {
    return states.size();
  }

  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this GridRateLimiter was closed");
    }
  }

  // ---- internals

  private Pending pending(Check check) {
    return pending(check, true);
  }

  /**
   * Validates a check and makes it a pending request. The partition id (one more serialization of
   * the key) is only needed to route through a batcher, so a direct call skips it.
   */
  private Pending pending(Check check, boolean routed) {
    return pending(check.rule(), check.policy(), check.key(), check.permits(), routed);
  }

  /** The fields were checked already (by {@link Check} or the caller). */
  private Pending pending(
      @Nullable String rule, @Nullable Policy policy, String key, long permits, boolean routed) {
    checkOpen();
    String stateKey;
    if (rule != null) {
      checkLocalRule(rule, permits);
      stateKey = StateKey.of(rule, key);
    } else {
      checkCapacity(Objects.requireNonNull(policy), permits);
      stateKey = StateKey.inline(key);
    }
    int partitionId = routed ? partitions.getPartition(stateKey).getPartitionId() : -1;
    return new Pending(stateKey, partitionId, rule, policy, permits, new CompletableFuture<>());
  }

  /** On a member, the rules are local: refuse unknown rules and impossible costs before sending. */
  private void checkLocalRule(String rule, long permits) {
    MemberContext member = localMember;
    if (member == null || !member.rulesLoaded()) {
      return;
    }
    MemberContext.ResolvedRule resolved = member.rule(rule);
    if (resolved == null) {
      throw new dev.sluice.core.UnknownRuleException(rule);
    }
    if (resolved.algorithm() != null) {
      checkPermits(resolved.algorithm(), permits);
    }
  }

  /**
   * How long a rule a client fetched for a batch check is trusted. A batch from a client checks its
   * named rules before sending anything, so that a batch with an unknown rule or an impossible cost
   * fails whole; fetching them on every batch cost a synchronous round trip per batch, which halved
   * the client SDK's hot-key throughput (it coalesces concurrent calls on one key into a batch). A
   * rule removed within this second is still caught by the owner, which answers "unknown rule".
   */
  private static final long RULE_CHECK_FRESH_NANOS = 1_000_000_000L;

  private record FetchedRule(RuleRecord record, long fetchedAtNanos) {}

  /** Rules fetched for batch checks; only live rules are kept, so a new rule is seen at once. */
  private final ConcurrentHashMap<String, FetchedRule> fetchedRules = new ConcurrentHashMap<>();

  /**
   * A client holds no rules copy, yet a batch with an unknown rule or an impossible cost must fail
   * whole with nothing counted: one {@code getAll} on the rules map checks every named rule first
   * (skipping those fetched within {@link #RULE_CHECK_FRESH_NANOS}). Single calls need no such
   * step: the owner refuses them atomically.
   */
  private void checkRulesRemotely(List<Check> checks) {
    long now = System.nanoTime();
    Map<String, @Nullable RuleRecord> resolved = new java.util.HashMap<>();
    java.util.Set<String> stale = new java.util.HashSet<>();
    for (Check check : checks) {
      String name = check.rule();
      if (name != null && !resolved.containsKey(name)) {
        FetchedRule fetched = fetchedRules.get(name);
        boolean fresh = fetched != null && now - fetched.fetchedAtNanos() <= RULE_CHECK_FRESH_NANOS;
        resolved.put(name, fresh ? fetched.record() : null);
        if (!fresh) {
          stale.add(name);
        }
      }
    }
    if (!stale.isEmpty()) {
      Map<String, RuleRecord> records = rules.records(stale);
      if (fetchedRules.size() > 10_000) {
        fetchedRules.clear();
      }
      for (String name : stale) {
        RuleRecord record = records.get(name);
        resolved.put(name, record);
        if (record != null && !record.isRemoved()) {
          fetchedRules.put(name, new FetchedRule(record, now));
        } else {
          fetchedRules.remove(name);
        }
      }
    }
    for (Check check : checks) {
      if (check.rule() == null) {
        continue;
      }
      RuleRecord record = resolved.get(check.rule());
      if (record == null || record.isRemoved()) {
        throw new dev.sluice.core.UnknownRuleException(check.rule());
      }
      try {
        checkPermits(LimiterAlgorithm.of(Objects.requireNonNull(record.policy())), check.permits());
      } catch (UnsupportedOperationException e) {
        // The owner answers this one with a clear error; nothing to add here.
      }
    }
  }

  private static void checkCapacity(Policy policy, long permits) {
    LimiterAlgorithm algorithm;
    try {
      algorithm = LimiterAlgorithm.of(policy);
    } catch (UnsupportedOperationException e) {
      throw new InvalidPolicyException("algorithm", e.getMessage());
    }
    checkPermits(algorithm, permits);
  }

  private static void checkPermits(LimiterAlgorithm algorithm, long permits) {
    if (permits > algorithm.capacity()) {
      throw new InvalidPolicyException(
          "cost",
          permits
              + " exceeds the capacity "
              + algorithm.capacity()
              + ", so it could never be allowed");
    }
  }

  private CompletableFuture<Decision> submit(Pending pending) {
    if (options.batchAsync()) {
      batcherFor(pending).submit(pending);
    } else {
      Map<String, List<Pending>> one = Map.of(pending.stateKey(), List.of(pending));
      sendDirect(one);
    }
    return pending.answer();
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
                created[i] = new OwnerBatcher(delivery(id), callbacks, options.maxKeysPerBatch());
              }
              return created;
            });
    return lanes[pending.partitionId() % lanes.length];
  }

  /**
   * How a batch for {@code owner} travels: from a member one operation per key started here; from a
   * client one Sluice message to the owner; {@code submitToKeys} when the owner is not known yet or
   * does not know that message.
   */
  private BatchDelivery delivery(UUID owner) {
    if (memberDecider != null) {
      return BatchDelivery.fromMember(memberDecider, SluiceHazelcast.STATE_MAP, callbacks);
    }
    BatchDelivery submitToKeys = BatchDelivery.submitToKeys(states);
    if (batchInvoker != null && !owner.equals(UNKNOWN_OWNER)) {
      return BatchDelivery.fromClient(batchInvoker, owner, callbacks, submitToKeys);
    }
    return submitToKeys;
  }

  /** One invocation per key, each carrying that key's requests in order. */
  private void sendDirect(Map<String, List<Pending>> byKey) {
    for (Map.Entry<String, List<Pending>> entry : byKey.entrySet()) {
      List<Pending> forKey = entry.getValue();
      Pending first = forKey.get(0);
      // Different inline policies on one key cannot share a step; send them one by one in order.
      boolean uniform = forKey.stream().allMatch(first::sameRequestsAs);
      if (!uniform) {
        CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
        for (Pending p : forKey) {
          previous =
              previous.handle((r, t) -> null).thenCompose(r -> sendOne(p.stateKey(), List.of(p)));
        }
        continue;
      }
      sendOne(entry.getKey(), forKey);
    }
  }

  private CompletableFuture<Void> sendOne(String stateKey, List<Pending> forKey) {
    Pending first = forKey.get(0);
    long[] permits = new long[forKey.size()];
    for (int j = 0; j < permits.length; j++) {
      permits[j] = forKey.get(j).permits();
    }
    KeyRequests requests =
        new KeyRequests(stateKey, first.partitionId(), first.rule(), first.policy(), permits);
    Map<String, List<Pending>> batch = Map.of(stateKey, forKey);
    try {
      // A plain handle, no executor: Hazelcast completes the future it returns from a task on its
      // default async executor, so this runs in that same task, never on a partition or network
      // thread. Naming that executor here would queue a second task per call (docs/grid.md).
      return states
          .submitToKey(stateKey, new AcquireProcessor(new KeyRequests[] {requests}))
          .handle(
              (outcome, failure) -> {
                complete(batch, outcome == null ? null : Map.of(stateKey, outcome), failure);
                return (Void) null;
              })
          .toCompletableFuture();
    } catch (RuntimeException e) {
      complete(batch, null, e);
      return CompletableFuture.completedFuture(null);
    }
  }

  /** Hands each waiting request its answer (or the failure). */
  static void complete(
      Map<String, List<Pending>> batch,
      @Nullable Map<String, KeyOutcome> outcomes,
      @Nullable Throwable failure) {
    for (Map.Entry<String, List<Pending>> entry : batch.entrySet()) {
      List<Pending> forKey = entry.getValue();
      KeyOutcome outcome = outcomes == null ? null : outcomes.get(entry.getKey());
      for (int i = 0; i < forKey.size(); i++) {
        CompletableFuture<Decision> answer = forKey.get(i).answer();
        if (failure != null) {
          answer.completeExceptionally(unwrap(failure));
        } else if (outcome == null || i >= outcome.size()) {
          answer.completeExceptionally(
              new IllegalStateException("no answer from the grid for " + entry.getKey()));
        } else {
          try {
            answer.complete(outcome.decision(i));
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        }
      }
    }
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Waits for an answer, rethrowing a failure as the caller would expect it thrown. */
  private static <T> T await(CompletableFuture<T> future) {
    try {
      return awaitWithin(future, Long.MAX_VALUE);
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer from the grid", e);
    }
  }

  private KeyOutcome invokeWithin(String stateKey, AcquireProcessor processor, long timeoutNanos)
      throws TimeoutException {
    try {
      return clientInvoker.submitToKey(stateKey, processor, timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the grid", e);
    } catch (ExecutionException e) {
      throw rethrown(e);
    }
  }

  /** {@link #await} for at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no bound). */
  private static <T> T awaitWithin(CompletableFuture<T> future, long timeoutNanos)
      throws TimeoutException {
    try {
      return timeoutNanos == Long.MAX_VALUE
          ? future.get()
          : future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the grid", e);
    } catch (ExecutionException e) {
      throw rethrown(e);
    }
  }

  /** The cause of a failed wait, as the caller would expect it thrown. */
  private static RuntimeException rethrown(ExecutionException e) {
    Throwable cause = unwrap(e);
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }
}
