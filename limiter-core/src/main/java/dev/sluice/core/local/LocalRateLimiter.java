package dev.sluice.core.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.TimeSource;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.rules.InMemoryRuleStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Sluice algorithms in one JVM: for single-process services, and the reference runtime every
 * other one is checked against (the contract suite runs here first).
 *
 * <pre>{@code
 * RateLimiter limiter = LocalRateLimiter.builder().rules(RulesFile.load(path)).build();
 * if (!limiter.tryAcquire("login", clientIp).allowed()) { ... answer 429 ... }
 * }</pre>
 *
 * <h2>How a decision is made</h2>
 *
 * Each key ({@code <rule>|<subject>}, or {@code ~inline|<subject>} for inline policies) owns a
 * {@code long[]} state in a Caffeine cache. A decision is one {@code compute} on that key: read the
 * clock, apply the algorithm, store the new state. {@code compute} is atomic per key, so concurrent
 * requests on one key are decided one after the other, each seeing the last, and requests on
 * different keys never wait for each other. The clock is read inside the {@code compute}, so the
 * times a key sees never go backwards with respect to the order it is decided in.
 *
 * <h2>Rule changes</h2>
 *
 * Beside each state sits the shape it was made for: algorithm, window and buckets. When a rule
 * changes only its limit (or burst), the counters carry over, as {@link RuleStore} promises; when
 * the shape changes, old counts mean nothing under the new math and the key starts afresh.
 *
 * <h2>Memory</h2>
 *
 * An idle key expires after its algorithm's {@link LimiterAlgorithm#stateTtlNanos()} (e.g. two
 * windows for sliding_window), after which a fresh state decides identically; expiry runs on the
 * injected {@link TimeSource}, so a manual clock drives it in tests. At most {@code maxKeys} states
 * are kept: beyond that the least valuable are evicted, and an evicted key is forgiven its count,
 * so size {@code maxKeys} above the number of keys active within a window.
 *
 * <p>Thread-safe. All operations complete synchronously; the async variants return completed
 * stages.
 */
public final class LocalRateLimiter implements RateLimiter {
  /** Default bound on stored keys: about 250 MB of sliding_window state. */
  public static final long DEFAULT_MAX_KEYS = 1_000_000L;

  /** Longest expiry handed to the cache; state TTLs are at most 60 days, this is far beyond. */
  private static final long MAX_TTL_NANOS = Long.MAX_VALUE / 4;

  private static final int MAX_CACHED_INLINE_POLICIES = 1_024;

  private final TimeSource timeSource;
  private final RuleStore rules;
  private final Cache<String, KeyState> states;

  /** The compiled form of each rule's current policy, replaced when the rule changes. */
  private final ConcurrentHashMap<String, Compiled> compiledRules = new ConcurrentHashMap<>();

  /** Compiled inline policies, bounded: callers may send a new policy with every request. */
  private final Cache<Policy, Compiled> compiledInline =
      Caffeine.newBuilder().maximumSize(MAX_CACHED_INLINE_POLICIES).build();

  private LocalRateLimiter(Builder builder) {
    this.timeSource = builder.timeSource;
    this.rules = builder.rules;
    this.states =
        Caffeine.newBuilder()
            .ticker(timeSource::nowNanos)
            .expireAfter(new StateExpiry())
            .maximumSize(builder.maxKeys)
            // Maintenance (expiry, eviction) stays on Caffeine's default executor: running it on
            // the calling thread would add it to every decision. Expiry is still exact for
            // reads, since an entry past its time is never returned; cleanUp() runs it at once.
            .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Decision tryAcquire(String rule, String key, long permits) {
    Compiled compiled = checked(ruleCompiled(rule), key, permits);
    return decide(StateKey.of(rule, key), compiled, permits);
  }

  @Override
  public Decision tryAcquire(Policy policy, String key, long permits) {
    Compiled compiled = checked(inlineCompiled(policy), key, permits);
    return decide(StateKey.inline(key), compiled, permits);
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return completed(() -> tryAcquire(rule, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    return completed(() -> tryAcquire(policy, key, permits));
  }

  /**
   * Decides every check in order, so checks on one key see the ones before them. Every check is
   * validated first: if any names an unknown rule or asks for more than its rule can hold, the
   * batch fails and nothing is counted.
   */
  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    List<Compiled> compiled = new ArrayList<>(checks.size());
    for (Check check : checks) {
      Objects.requireNonNull(check, "checks must not hold null");
      Compiled one =
          check.rule() != null ? ruleCompiled(check.rule()) : inlineCompiled(check.policy());
      compiled.add(checked(one, check.key(), check.permits()));
    }
    List<Decision> decisions = new ArrayList<>(checks.size());
    for (int i = 0; i < checks.size(); i++) {
      Check check = checks.get(i);
      String stateKey =
          check.rule() != null
              ? StateKey.of(check.rule(), check.key())
              : StateKey.inline(check.key());
      decisions.add(decide(stateKey, compiled.get(i), check.permits()));
    }
    return decisions;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return completed(() -> tryAcquireAll(checks));
  }

  @Override
  public Decision peek(String rule, String key) {
    Compiled compiled = checked(ruleCompiled(rule), key, 0);
    return peek(StateKey.of(rule, key), compiled);
  }

  @Override
  public void reset(String rule, String key) {
    rules.get(rule);
    StateKey.checkSubject(key);
    states.invalidate(StateKey.of(rule, key));
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /** Keys holding state, approximately: expired keys may count until the next maintenance. */
  public long keyCount() {
    return states.estimatedSize();
  }

  /**
   * Runs pending expiry and eviction now. They otherwise run as a side effect of traffic, which is
   * enough for memory; this is for tests and for an exact {@link #keyCount()}.
   */
  public void cleanUp() {
    states.cleanUp();
  }

  private Decision decide(String stateKey, Compiled compiled, long permits) {
    if (permits == 0) {
      // A peek changes nothing: no state is created and no expiry is extended.
      return peek(stateKey, compiled);
    }
    Decider decider = new Decider(compiled, permits);
    states.asMap().compute(stateKey, decider);
    Decision decision = Objects.requireNonNull(decider.decision);
    return compiled.policy.shadow() ? decision.asShadow() : decision;
  }

  private Decision peek(String stateKey, Compiled compiled) {
    KeyState stored = states.getIfPresent(stateKey);
    long[] state;
    if (stored != null && stored.shape.equals(compiled.shape)) {
      synchronized (stored) {
        state = compiled.algorithm.fit(stored.state.clone());
      }
    } else {
      state = compiled.algorithm.newState();
    }
    Decision decision = compiled.algorithm.apply(state, timeSource.nowNanos(), 0);
    return compiled.policy.shadow() ? decision.asShadow() : decision;
  }

  /** Checks the request against the rule before anything is counted. */
  private static Compiled checked(Compiled compiled, String key, long permits) {
    StateKey.checkSubject(key);
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
    long capacity = compiled.algorithm.capacity();
    if (permits > capacity) {
      throw new InvalidPolicyException(
          "cost", permits + " exceeds the capacity " + capacity + ", so it could never be allowed");
    }
    return compiled;
  }

  private Compiled ruleCompiled(@Nullable String name) {
    if (name == null) {
      throw new InvalidPolicyException("rule", "is required");
    }
    Rule rule = rules.find(name).orElse(null);
    if (rule == null) {
      compiledRules.remove(name);
      throw new UnknownRuleException(name);
    }
    Compiled compiled = compiledRules.get(name);
    if (compiled != null
        && (compiled.policy == rule.policy() || compiled.policy.equals(rule.policy()))) {
      return compiled;
    }
    Compiled fresh = new Compiled(rule.policy());
    compiledRules.put(name, fresh);
    return fresh;
  }

  private Compiled inlineCompiled(@Nullable Policy policy) {
    if (policy == null) {
      throw new InvalidPolicyException("policy", "is required");
    }
    return compiledInline.get(policy, Compiled::new);
  }

  private static <T> CompletionStage<T> completed(Supplier<T> decision) {
    try {
      return CompletableFuture.completedFuture(decision.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * What makes two policies' states interchangeable: the same algorithm over the same windows. The
   * limit and burst are not part of it, so changing them keeps the counters.
   */
  private record Shape(Algorithm algorithm, long windowNanos, int buckets) {
    static Shape of(Policy policy) {
      return new Shape(policy.algorithm(), policy.windowNanos(), policy.buckets());
    }
  }

  /** A policy with its algorithm built once. */
  private static final class Compiled {
    final Policy policy;
    final LimiterAlgorithm algorithm;
    final Shape shape;
    final long ttlNanos;

    Compiled(Policy policy) {
      this.policy = policy;
      this.algorithm = LimiterAlgorithm.of(policy);
      this.shape = Shape.of(policy);
      this.ttlNanos = Math.min(Math.max(1, algorithm.stateTtlNanos()), MAX_TTL_NANOS);
    }
  }

  /**
   * A key's state. Written only inside the cache's per-key {@code compute}; the monitor is there so
   * that a {@link #peek} outside it copies a consistent array.
   */
  private static final class KeyState {
    long[] state;
    final Shape shape;
    long ttlNanos;

    KeyState(long[] state, Shape shape) {
      this.state = state;
      this.shape = shape;
    }
  }

  /** One decision, as the remapping function of the key's {@code compute}. */
  private final class Decider implements BiFunction<String, KeyState, KeyState> {
    private final Compiled compiled;
    private final long permits;
    @Nullable Decision decision;

    Decider(Compiled compiled, long permits) {
      this.compiled = compiled;
      this.permits = permits;
    }

    @Override
    public KeyState apply(String stateKey, @Nullable KeyState stored) {
      KeyState keyState = stored;
      if (keyState == null || !keyState.shape.equals(compiled.shape)) {
        keyState = new KeyState(compiled.algorithm.newState(), compiled.shape);
      }
      long nowNanos = timeSource.nowNanos();
      synchronized (keyState) {
        keyState.state = compiled.algorithm.fit(keyState.state);
        decision = compiled.algorithm.apply(keyState.state, nowNanos, permits);
        keyState.ttlNanos = compiled.ttlNanos;
      }
      return keyState;
    }
  }

  /** Each state lives as long as its algorithm says it matters, counted from its last write. */
  private static final class StateExpiry implements Expiry<String, KeyState> {
    @Override
    public long expireAfterCreate(String key, KeyState value, long currentTime) {
      return value.ttlNanos;
    }

    @Override
    public long expireAfterUpdate(
        String key, KeyState value, long currentTime, long currentDuration) {
      return value.ttlNanos;
    }

    @Override
    public long expireAfterRead(
        String key, KeyState value, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  /** Configures a {@link LocalRateLimiter}. */
  public static final class Builder {
    private TimeSource timeSource = TimeSource.system();
    private RuleStore rules = new InMemoryRuleStore();
    private long maxKeys = DEFAULT_MAX_KEYS;

    private Builder() {}

    /** Where {@code now} comes from; the system clock by default. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
      return this;
    }

    /** The named rules; an empty {@link InMemoryRuleStore} by default. */
    public Builder rules(RuleStore rules) {
      this.rules = Objects.requireNonNull(rules, "rules");
      return this;
    }

    /** The named rules, held in a new {@link InMemoryRuleStore}. */
    public Builder rules(List<Rule> rules) {
      return rules(InMemoryRuleStore.of(rules));
    }

    /** The most keys to hold state for; {@link #DEFAULT_MAX_KEYS} by default. */
    public Builder maxKeys(long maxKeys) {
      if (maxKeys < 1) {
        throw new InvalidPolicyException("maxKeys", "must be at least 1, was " + maxKeys);
      }
      this.maxKeys = maxKeys;
      return this;
    }

    public LocalRateLimiter build() {
      return new LocalRateLimiter(this);
    }
  }
}
