package dev.sluice.client;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.grid.GridRateLimiter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The application's rate limiter: a {@link RateLimiter} in front of the grid that answers the
 * attack path locally and never hangs the application.
 *
 * <p>Start here. Connect to a grid with {@link #builder()}{@code ...build()}, or put the same
 * client-side behaviour in front of any limiter (an embedded member's, a local one) with {@link
 * Builder#wrap(RateLimiter)}:
 *
 * <pre>{@code
 * try (SluiceClient sluice = SluiceClient.builder()
 *     .addresses("10.0.0.1:5701", "10.0.0.2:5701")
 *     .clusterName("sluice")
 *     .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
 *     .build()) {
 *   Decision d = sluice.tryAcquire("login", "203.0.113.7");
 * }
 * }</pre>
 *
 * <h2>What happens to one call</h2>
 *
 * <ol>
 *   <li><b>Denied-until cache</b> ({@link DeniedUntilCache}): if the grid recently denied this key
 *       for at most this many permits and the retry-after has not run out, the answer is "denied"
 *       at once, decided by {@code DENIED_CACHE}. No network hop.
 *   <li><b>Circuit breaker</b> ({@link CircuitBreaker}): if the grid recently failed, the failure
 *       policy of the rule answers at once ({@code FAIL_OPEN} or {@code FAIL_CLOSED}); one call per
 *       probe interval goes to the grid to find out whether it is back.
 *   <li><b>Coalescing</b> ({@link Coalescer}): if another call on the same key is in flight from
 *       this client, this one waits and leaves with the others queued behind it as one batch.
 *   <li><b>The grid</b>: one entry-processor invocation on the member that owns the key, waited for
 *       at most the call timeout. A timeout or a lost connection opens the breaker and the failure
 *       policy answers; errors that belong to the request (unknown rule, a cost above the capacity)
 *       are thrown to the caller as they are.
 * </ol>
 *
 * <p>A call that times out may still be decided by the grid later: the failure policy answered the
 * caller, but the permits may have been consumed. Timeouts are for outages, not for normal load.
 *
 * <p>Thread-safe. Close it to shut down the Hazelcast client it started (a wrapped limiter is not
 * closed: it belongs to the caller).
 */
public final class SluiceClient implements RateLimiter, AutoCloseable {

  /** How long a decision waits for the grid by default before the failure policy answers. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMillis(50);

  private final RateLimiter delegate;
  private final @Nullable Runnable shutdown;
  private final long callTimeoutNanos;
  private final FailurePolicy defaultFailurePolicy;
  private final Map<String, FailurePolicy> ruleFailurePolicies;
  private final @Nullable DeniedUntilCache deniedCache;
  private final @Nullable Coalescer coalescer;
  private final CircuitBreaker breaker;
  private final LocalDecisionMetrics metrics;
  private final LongSupplier nanoClock;
  private final CachedRuleStore rules;
  private final @Nullable Runnable unlisten;

  SluiceClient(Builder builder, RateLimiter delegate, @Nullable Runnable shutdown) {
    this.delegate = delegate;
    this.shutdown = shutdown;
    this.callTimeoutNanos = builder.callTimeout.toNanos();
    this.defaultFailurePolicy = builder.failurePolicy;
    this.ruleFailurePolicies = Map.copyOf(builder.ruleFailurePolicies);
    this.nanoClock = builder.nanoClock;
    this.deniedCache =
        builder.deniedCacheSize > 0
            ? new DeniedUntilCache(builder.deniedCacheSize, builder.nanoClock)
            : null;
    this.breaker = new CircuitBreaker(builder.probeInterval.toNanos(), builder.nanoClock);
    this.metrics = new LocalDecisionMetrics(builder.meterRegistry);
    this.coalescer = builder.coalescing ? new Coalescer(new RemoteDecider()) : null;
    this.rules =
        new CachedRuleStore(
            // Wall time, not the injected clock: the staleness bound covers events lost in real
            // time, and tests that freeze the client's clock must still see rule changes.
            delegate.rules(), this::onRuleChange, breaker::isOpen, System::nanoTime);
    this.unlisten = GridSupport.listenToRules(delegate, rules);
    GridSupport.warmUp(delegate, builder.connectTimeout);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The client-side behaviour with every default, in front of {@code limiter}. */
  public static SluiceClient wrap(RateLimiter limiter) {
    return builder().wrap(limiter);
  }

  // ---------------------------------------------------------------- decisions

  @Override
  public Decision tryAcquire(String rule, String key, long permits) {
    Decision denied = deniedFastPath(rule, key, permits);
    return denied != null ? denied : decide(Check.of(rule, key, permits));
  }

  /**
   * The attack path, before any validation: an entry exists only for a rule and key that were valid
   * when the grid denied them, and it answers only costs between the denied one and the limit, so a
   * hit needs no further checks. A miss goes the whole way, validation first.
   */
  private @Nullable Decision deniedFastPath(String rule, String key, long permits) {
    if (deniedCache == null || rule == null || key == null) {
      return null;
    }
    Decision denied = deniedCache.lookup(new DeniedUntilCache.Key(rule, null, key), permits);
    if (denied != null) {
      metrics.deniedCache.increment();
    }
    return denied;
  }

  @Override
  public Decision tryAcquire(Policy policy, String key, long permits) {
    return decide(Check.inline(policy, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return decideAsync(Check.of(rule, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    return decideAsync(Check.inline(policy, key, permits));
  }

  private Decision decide(Check check) {
    DeniedUntilCache.Key key = keyOf(check);
    Decision local = localAnswer(key, check);
    if (local != null) {
      return local;
    }
    if (coalescer != null) {
      return coalescer.decide(key, check);
    }
    return decideRemote(List.of(check)).get(0);
  }

  private CompletionStage<Decision> decideAsync(Check check) {
    DeniedUntilCache.Key key = keyOf(check);
    Decision local = localAnswer(key, check);
    if (local != null) {
      return CompletableFuture.completedFuture(local);
    }
    if (coalescer != null) {
      return coalescer.decideAsync(key, check);
    }
    return decideRemoteAsync(List.of(check)).thenApply(decisions -> decisions.get(0));
  }

  /** The denied cache's or the open breaker's answer, or {@code null} to ask the grid. */
  private @Nullable Decision localAnswer(DeniedUntilCache.Key key, Check check) {
    if (deniedCache != null) {
      Decision denied = deniedCache.lookup(key, check.permits());
      if (denied != null) {
        metrics.deniedCache.increment();
        return denied;
      }
      metrics.deniedCacheMisses.increment();
    }
    if (!breaker.tryPass()) {
      return failureDecision(check);
    }
    return null;
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    Check.requireAll(checks);
    Decision[] answers = new Decision[checks.size()];
    List<Check> remote = localAnswers(checks, answers);
    if (!remote.isEmpty()) {
      merge(answers, decideRemote(remote));
    }
    return List.of(answers);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    Check.requireAll(checks);
    Decision[] answers = new Decision[checks.size()];
    List<Check> remote = localAnswers(checks, answers);
    if (remote.isEmpty()) {
      return CompletableFuture.completedFuture(List.of(answers));
    }
    return decideRemoteAsync(remote)
        .thenApply(
            decisions -> {
              merge(answers, decisions);
              return List.of(answers);
            });
  }

  /**
   * Fills {@code answers} with what can be decided locally and returns the rest, in order. Leaving
   * a locally denied check out of a batch changes nothing for the checks after it: a denial changes
   * no state (and policies that count denials are never cached).
   */
  private List<Check> localAnswers(List<Check> checks, Decision[] answers) {
    List<Check> remote = new ArrayList<>(checks.size());
    for (int i = 0; i < checks.size(); i++) {
      Check check = checks.get(i);
      Decision local = localAnswer(keyOf(check), check);
      if (local != null) {
        answers[i] = local;
      } else {
        remote.add(check);
      }
    }
    return remote;
  }

  private static void merge(Decision[] answers, List<Decision> remote) {
    int next = 0;
    for (int i = 0; i < answers.length; i++) {
      if (answers[i] == null) {
        answers[i] = remote.get(next++);
      }
    }
  }

  // ---------------------------------------------------------------- the grid

  /**
   * A synchronous round trip within the call timeout. Over a grid limiter the caller's thread waits
   * on Hazelcast's own future ({@link GridRateLimiter#tryAcquireAll(List, Duration)}), one thread
   * hand-off per call like a plain synchronous Hazelcast call; other limiters are waited on through
   * their asynchronous API.
   */
  private List<Decision> decideRemote(List<Check> checks) {
    long sentAt = nanoClock.getAsLong();
    List<Decision> decisions;
    try {
      decisions =
          delegate instanceof GridRateLimiter grid
              ? grid.tryAcquireAll(checks, Duration.ofNanos(callTimeoutNanos))
              : send(checks).get(callTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return onFailure(checks);
    } catch (RuntimeException | ExecutionException | TimeoutException e) {
      return onError(checks, e);
    }
    return onAnswer(checks, sentAt, decisions);
  }

  private CompletionStage<List<Decision>> decideRemoteAsync(List<Check> checks) {
    long sentAt = nanoClock.getAsLong();
    return send(checks)
        .orTimeout(callTimeoutNanos, TimeUnit.NANOSECONDS)
        .handle(
            (decisions, error) ->
                error == null ? onAnswer(checks, sentAt, decisions) : onError(checks, error));
  }

  /** The grid's answer as a fresh future this client may time out without touching the grid's. */
  private CompletableFuture<List<Decision>> send(List<Check> checks) {
    CompletableFuture<List<Decision>> flight = new CompletableFuture<>();
    CompletionStage<List<Decision>> stage;
    try {
      if (checks.size() == 1) {
        Check c = checks.get(0);
        stage =
            (c.rule() != null
                    ? delegate.tryAcquireAsync(c.rule(), c.key(), c.permits())
                    : delegate.tryAcquireAsync(policyOf(c), c.key(), c.permits()))
                .thenApply(List::of);
      } else {
        stage = delegate.tryAcquireAllAsync(checks);
      }
    } catch (RuntimeException e) {
      flight.completeExceptionally(e);
      return flight;
    }
    stage.whenComplete(
        (decisions, error) -> {
          if (error != null) {
            flight.completeExceptionally(error);
          } else {
            flight.complete(decisions);
          }
        });
    return flight;
  }

  private List<Decision> onAnswer(List<Check> checks, long sentAt, List<Decision> decisions) {
    breaker.onSuccess();
    if (deniedCache != null) {
      for (int i = 0; i < checks.size(); i++) {
        Decision d = decisions.get(i);
        if (!d.allowed() && d.decidedBy() == Decision.DecidedBy.LIMITER) {
          Check c = checks.get(i);
          if (!countsDenied(c)) {
            deniedCache.record(keyOf(c), c.permits(), sentAt, d);
          }
        }
      }
    }
    return decisions;
  }

  /** Rethrows what belongs to the request; answers grid failures by the failure policy. */
  private List<Decision> onError(List<Check> checks, Throwable error) {
    Throwable cause = unwrap(error);
    if (cause instanceof IllegalArgumentException e) {
      throw e; // InvalidPolicyException among them: the request is wrong, not the grid
    }
    if (cause instanceof UnknownRuleException e) {
      throw e;
    }
    return onFailure(checks);
  }

  private List<Decision> onFailure(List<Check> checks) {
    breaker.onFailure();
    List<Decision> decisions = new ArrayList<>(checks.size());
    for (Check c : checks) {
      decisions.add(failureDecision(c));
    }
    return decisions;
  }

  private static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The answer when the grid cannot give one. Its {@code limit} is what the grid would report (the
   * algorithm's capacity: {@code burst + 1} for gcra) when the policy is known: an inline policy's,
   * or a named rule's from the rules near cache (a rule this client has looked up before). A rule
   * never looked up has no known limit here: {@code limit = remaining = 0}, and middleware leaves
   * the RateLimit headers out. Fail-open reports the whole limit as remaining (the grid's count is
   * unknown, and this client admits while it is away); fail-closed reports none left.
   */
  private Decision failureDecision(Check check) {
    long limit = knownLimit(check);
    if (failurePolicyOf(check) == FailurePolicy.FAIL_OPEN) {
      metrics.failOpen.increment();
      return new Decision(true, limit, limit, 0, 0, 0, false, Decision.DecidedBy.FAIL_OPEN);
    }
    metrics.failClosed.increment();
    long retry = breaker.nanosUntilProbe();
    return new Decision(false, limit, 0, retry, retry, 0, false, Decision.DecidedBy.FAIL_CLOSED);
  }

  private long knownLimit(Check check) {
    Policy policy =
        check.policy() != null
            ? check.policy()
            : rules.cached(check.rule()).map(Rule::policy).orElse(null);
    if (policy == null) {
      return 0;
    }
    try {
      return LimiterAlgorithm.of(policy).capacity();
    } catch (RuntimeException e) {
      return policy.limit(); // an algorithm this build does not know: the policy's own number
    }
  }

  /** The failure policy of {@code check}'s rule; inline policies take the client's default. */
  public FailurePolicy failurePolicyOf(Check check) {
    String rule = check.rule();
    return rule == null
        ? defaultFailurePolicy
        : ruleFailurePolicies.getOrDefault(rule, defaultFailurePolicy);
  }

  private boolean countsDenied(Check check) {
    Policy policy = check.policy();
    if (policy != null) {
      return policy.countDenied();
    }
    try {
      return rules.find(check.rule()).map(r -> r.policy().countDenied()).orElse(true);
    } catch (RuntimeException e) {
      return true; // cannot tell: do not cache
    }
  }

  private static Policy policyOf(Check check) {
    Policy policy = check.policy();
    if (policy == null) {
      throw new InvalidPolicyException("policy", "is required for an inline check");
    }
    return policy;
  }

  private static DeniedUntilCache.Key keyOf(Check check) {
    return new DeniedUntilCache.Key(check.rule(), check.policy(), check.key());
  }

  /** Sends the coalescer's batches through the timeout, breaker and cache bookkeeping. */
  private final class RemoteDecider implements Coalescer.BatchDecider {
    @Override
    public List<Decision> decide(List<Check> checks) {
      return decideRemote(checks);
    }

    @Override
    public CompletionStage<List<Decision>> decideAsync(List<Check> checks) {
      return decideRemoteAsync(checks);
    }
  }

  // ---------------------------------------------------------------- the rest of RateLimiter

  /**
   * @throws GridUnavailableException if the breaker is open: a peek has no local answer
   */
  @Override
  public Decision peek(String rule, String key) {
    if (breaker.isOpen()) {
      throw new GridUnavailableException("the grid is unreachable; peek has no local answer");
    }
    return delegate.peek(rule, key);
  }

  /** Resets the key on the grid and forgets any local denial of it. */
  @Override
  public void reset(String rule, String key) {
    Rule.checkName(rule, "rule");
    StateKey.checkSubject(key);
    if (deniedCache != null) {
      deniedCache.invalidate(new DeniedUntilCache.Key(rule, null, key));
    }
    delegate.reset(rule, key);
  }

  /**
   * The grid's rules, near-cached here and invalidated by the cluster (see {@link
   * CachedRuleStore}); a change also drops this client's local denials under that rule.
   */
  @Override
  public RuleStore rules() {
    return rules;
  }

  /**
   * Forgets every local denial under {@code rule}: called when a rule changes, since a new limit or
   * window can admit what the old one denied.
   */
  public void invalidateRule(String rule) {
    if (deniedCache != null) {
      deniedCache.invalidateRule(rule);
    }
  }

  private void onRuleChange(String rule) {
    if (rule.isEmpty()) {
      if (deniedCache != null) {
        deniedCache.invalidateAll();
      }
    } else {
      invalidateRule(rule);
    }
  }

  /**
   * Whether the circuit breaker is open: the grid failed recently and calls are decided locally.
   */
  public boolean gridUnavailable() {
    return breaker.isOpen();
  }

  /**
   * The Hazelcast instance behind this client: its own Hazelcast client, or the member or client of
   * a wrapped grid limiter; empty for other limiters.
   */
  public Optional<HazelcastInstance> hazelcast() {
    return delegate instanceof GridRateLimiter grid
        ? Optional.of(grid.hazelcast())
        : Optional.empty();
  }

  /** The limiter this client sends to: a grid limiter over its Hazelcast client, or the wrapped. */
  public RateLimiter delegate() {
    return delegate;
  }

  @Override
  public void close() {
    if (unlisten != null) {
      unlisten.run();
    }
    rules.close();
    if (shutdown != null) {
      shutdown.run();
    }
  }

  /**
   * Options of a {@link SluiceClient}. Every option has a default that suits an application that
   * would rather serve than block: fail-open, a 50 ms call timeout, a one-second probe interval,
   * denied cache of 100,000 keys, coalescing on.
   */
  public static final class Builder {
    final List<String> addresses = new ArrayList<>();
    String clusterName = "sluice";
    Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    Duration probeInterval = Duration.ofSeconds(1);
    FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;
    final Map<String, FailurePolicy> ruleFailurePolicies = new HashMap<>();
    long deniedCacheSize = 100_000;
    boolean coalescing = true;
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    LongSupplier nanoClock = System::nanoTime;
    Duration connectTimeout = Duration.ofSeconds(5);
    Consumer<ClientConfig> clientConfigCustomizer = config -> {};

    Builder() {}

    /**
     * How long {@link #build()} waits for the first connection to the cluster (5 s by default). It
     * never waits longer: if the cluster is not there yet, the client keeps connecting in the
     * background and decisions follow the failure policy until it is.
     */
    public Builder connectTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative()) {
        throw new InvalidPolicyException("connectTimeout", "must not be negative, was " + timeout);
      }
      this.connectTimeout = timeout;
      return this;
    }

    /**
     * A last word on the Hazelcast client's settings (TLS, discovery, labels), applied after
     * Sluice's own.
     */
    public Builder clientConfig(Consumer<ClientConfig> customizer) {
      this.clientConfigCustomizer = Objects.requireNonNull(customizer, "clientConfig");
      return this;
    }

    /**
     * Starts a Hazelcast client to the cluster (smart routing: one hop to each key's owner) and a
     * grid limiter over it. Closing the {@link SluiceClient} shuts them down.
     */
    public SluiceClient build() {
      HazelcastInstance hazelcast =
          GridSupport.start(GridSupport.clientConfig(this), connectTimeout);
      GridRateLimiter grid;
      try {
        grid = new GridRateLimiter(hazelcast);
      } catch (RuntimeException e) {
        // Whatever failed, stop the client: its threads would otherwise keep running (and keep the
        // JVM alive) with nobody left to close it. Offline, it cannot create the limiter's map
        // proxies; any other failure is not an outage and goes to the caller as it is.
        hazelcast.shutdown();
        if (!(e instanceof HazelcastClientOfflineException)) {
          throw e;
        }
        throw new GridUnavailableException(
            "no member of cluster '"
                + clusterName
                + "' at "
                + (addresses.isEmpty() ? List.of("127.0.0.1:5701") : addresses)
                + " answered within connectTimeout "
                + Durations.format(connectTimeout)
                + " ("
                + e.getMessage()
                + "); build() needs the grid once, then decisions follow the failure policy",
            e);
      }
      return new SluiceClient(
          this,
          grid,
          () -> {
            grid.close();
            hazelcast.shutdown();
          });
    }

    /** Member addresses ({@code host:port}) to connect to; 127.0.0.1:5701 if none is given. */
    public Builder addresses(String... memberAddresses) {
      addresses.addAll(List.of(memberAddresses));
      return this;
    }

    public Builder clusterName(String name) {
      if (name == null || name.isBlank()) {
        throw new InvalidPolicyException("clusterName", "is required");
      }
      this.clusterName = name;
      return this;
    }

    /** How long a decision waits for the grid before the failure policy answers. */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = positive("callTimeout", timeout);
      return this;
    }

    /** How often, while the grid is failing, one call goes to it to see whether it is back. */
    public Builder probeInterval(Duration interval) {
      this.probeInterval = positive("probeInterval", interval);
      return this;
    }

    /** The failure policy of every rule not given its own, and of inline policies. */
    public Builder failurePolicy(FailurePolicy policy) {
      this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
      return this;
    }

    /** The failure policy of one rule. */
    public Builder failurePolicy(String rule, FailurePolicy policy) {
      ruleFailurePolicies.put(
          Rule.checkName(rule), Objects.requireNonNull(policy, "failurePolicy"));
      return this;
    }

    /** How many denied keys the client remembers; 0 turns the denied-until cache off. */
    public Builder deniedCacheSize(long size) {
      if (size < 0) {
        throw new InvalidPolicyException("deniedCacheSize", "must not be negative, was " + size);
      }
      this.deniedCacheSize = size;
      return this;
    }

    /** Whether concurrent calls on one key leave as one batch (on by default). */
    public Builder coalescing(boolean enabled) {
      this.coalescing = enabled;
      return this;
    }

    /** Where {@code sluice_client_local_decisions_total} and friends are registered. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
      return this;
    }

    /** The monotonic clock of local expiries and the breaker; tests move a manual one. */
    Builder nanoClock(LongSupplier clock) {
      this.nanoClock = clock;
      return this;
    }

    /** A client with these options in front of {@code limiter}, which it does not own. */
    public SluiceClient wrap(RateLimiter limiter) {
      return new SluiceClient(this, Objects.requireNonNull(limiter, "limiter"), null);
    }

    private static Duration positive(String field, Duration duration) {
      if (duration == null || duration.isNegative() || duration.isZero()) {
        throw new InvalidPolicyException(field, "must be positive, was " + duration);
      }
      return duration;
    }
  }
}
