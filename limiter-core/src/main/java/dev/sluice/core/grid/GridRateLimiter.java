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
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimiter} of a Sluice grid, over any {@link HazelcastInstance}: an embedded member
 * or a client, the same class. Every decision runs as an {@link AcquireProcessor} on the member
 * that owns the key, reading that member's clock (DESIGN §3).
 *
 * <h2>How calls reach the grid</h2>
 *
 * With {@link Options#batching()} (the default), every acquire, synchronous or not, goes through an
 * {@link OwnerBatcher}: one per owning member and lane. While a lane's invocation is in flight new
 * requests queue; when it returns they leave together as one {@code submitToKeys}, each key's
 * requests in one atomic step. A synchronous call simply waits for its request's answer. Without
 * batching, each call is its own {@code executeOnKey}/{@code submitToKey}.
 *
 * <p>Answers complete on an executor this limiter owns ({@link Options#callbackThreads()} daemon
 * threads): on small machines Hazelcast would otherwise start a thread per async callback (DESIGN
 * §9). Dependent stages that callers attach without an executor run there too, so keep them short.
 * {@link #close()} stops it.
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
   * Tuning.
   *
   * @param batching send acquires through per-owner opportunistic batches (default true)
   * @param lanesPerMember concurrent batches per member; a key always uses the same lane
   * @param maxKeysPerBatch the most keys one invocation carries
   * @param callbackThreads threads that complete answers and send the next batches
   */
  public record Options(
      boolean batching, int lanesPerMember, int maxKeysPerBatch, int callbackThreads) {
    public Options {
      if (lanesPerMember < 1 || maxKeysPerBatch < 1 || callbackThreads < 1) {
        throw new IllegalArgumentException("lanes, batch size and threads must be at least 1");
      }
    }

    public static Options defaults() {
      return new Options(true, 2, 256, 2);
    }

    public Options withBatching(boolean batching) {
      return new Options(batching, lanesPerMember, maxKeysPerBatch, callbackThreads);
    }

    public Options withLanesPerMember(int lanes) {
      return new Options(batching, lanes, maxKeysPerBatch, callbackThreads);
    }
  }

  private final HazelcastInstance hazelcast;
  private final IMap<String, GridState> states;
  private final PartitionService partitions;
  private final GridRuleStore rules;
  private final @Nullable MemberContext localMember;
  private final Options options;
  private final ExecutorService callbacks;
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
    this.rules = new GridRuleStore(hazelcast);
    this.localMember = isClient(hazelcast) ? null : MemberContext.of(hazelcast);
    this.callbacks = Executors.newFixedThreadPool(options.callbackThreads(), daemonThreads());
  }

  private static boolean isClient(HazelcastInstance hazelcast) {
    // A member's local endpoint is a Member; a client's is a Client.
    return !(hazelcast.getLocalEndpoint() instanceof Member);
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "sluice-callback-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  public HazelcastInstance hazelcast() {
    return hazelcast;
  }

  @Override
  public Decision tryAcquire(String rule, String key, long permits) {
    return await(tryAcquireAsync(rule, key, permits));
  }

  @Override
  public Decision tryAcquire(Policy policy, String key, long permits) {
    return await(tryAcquireAsync(policy, key, permits));
  }

  @Override
  public CompletableFuture<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return submit(pending(Check.of(rule, key, permits)));
  }

  @Override
  public CompletableFuture<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    Objects.requireNonNull(policy, "policy");
    return submit(pending(Check.inline(policy, key, permits)));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return await(tryAcquireAllAsync(checks));
  }

  @Override
  public CompletableFuture<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    Objects.requireNonNull(checks, "checks");
    List<Pending> pendings = new ArrayList<>(checks.size());
    for (Check check : checks) {
      pendings.add(pending(Objects.requireNonNull(check, "check")));
    }
    if (options.batching()) {
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
    Rule.checkName(rule);
    StateKey.checkSubject(key);
    KeyOutcome outcome = states.executeOnKey(StateKey.of(rule, key), new PeekProcessor(rule, null));
    return outcome.decision(0);
  }

  @Override
  public void reset(String rule, String key) {
    Rule.checkName(rule);
    StateKey.checkSubject(key);
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
    callbacks.shutdown();
  }

  // ---- internals

  private Pending pending(Check check) {
    String stateKey;
    if (check.rule() != null) {
      checkLocalRule(check.rule(), check.permits());
      stateKey = StateKey.of(check.rule(), check.key());
    } else {
      checkCapacity(Objects.requireNonNull(check.policy()), check.permits());
      stateKey = StateKey.inline(check.key());
    }
    int partitionId = partitions.getPartition(stateKey).getPartitionId();
    return new Pending(
        stateKey,
        partitionId,
        check.rule(),
        check.policy(),
        check.permits(),
        new CompletableFuture<>());
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
    if (options.batching()) {
      batcherFor(pending).submit(pending);
    } else {
      Map<String, List<Pending>> one = Map.of(pending.stateKey(), List.of(pending));
      sendDirect(one);
    }
    return pending.answer();
  }

  private OwnerBatcher batcherFor(Pending pending) {
    Partition partition = partitions.getPartition(pending.stateKey());
    Member owner = partition.getOwner();
    UUID ownerId = owner == null ? UNKNOWN_OWNER : owner.getUuid();
    OwnerBatcher[] lanes =
        batchers.computeIfAbsent(
            ownerId,
            id -> {
              OwnerBatcher[] created = new OwnerBatcher[options.lanesPerMember()];
              for (int i = 0; i < created.length; i++) {
                created[i] = new OwnerBatcher(states, callbacks, options.maxKeysPerBatch());
              }
              return created;
            });
    return lanes[pending.partitionId() % lanes.length];
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
      return states
          .submitToKey(stateKey, new AcquireProcessor(new KeyRequests[] {requests}))
          .handleAsync(
              (outcome, failure) -> {
                complete(batch, outcome == null ? null : Map.of(stateKey, outcome), failure);
                return (Void) null;
              },
              callbacks)
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
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the grid", e);
    } catch (ExecutionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    }
  }
}
