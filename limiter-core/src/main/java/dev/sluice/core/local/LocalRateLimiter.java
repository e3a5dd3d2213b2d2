package dev.sluice.core.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * {@code long[]} state in a Caffeine cache. A decision looks the state up, takes its monitor, reads
 * the clock, applies the algorithm in place and stamps the state's expiry. The monitor makes a
 * key's decisions atomic and ordered (each sees the last, and the times a key sees never go
 * backwards with respect to that order); different keys never wait for each other. An existing key
 * costs a cache read and an uncontended monitor, not a cache write: the write path (with its expiry
 * and eviction bookkeeping) is taken only when a key is first seen or changes shape, and it is a
 * {@code compute}, so two threads never create two states for one key.
 *
 * <p>A state leaves the cache in three ways, each under its monitor: it expires, it is evicted for
 * space, or it is reset. Leaving marks it retired, and a decision that finds its state retired
 * looks again, so no decision is ever applied to a state the cache no longer holds, except one that
 * raced an eviction for space, which forgets the key anyway.
 *
 * <h2>Rule changes</h2>
 *
 * Beside each state sits the shape it was made for: algorithm, window and buckets. When a rule
 * changes only its limit (or burst), the counters carry over, as {@link RuleStore} promises; when
 * the shape changes, old counts mean nothing under the new math and the key starts afresh.
 *
 * <h2>Memory</h2>
 *
 * A state idle past its algorithm's {@link LimiterAlgorithm#untilFreshNanos} (e.g. the end of the
 * window after its current one, for sliding_window) decides exactly as a fresh one, so it is
 * treated as fresh on its next use and swept out of memory in the background at most every {@link
 * #SWEEP_INTERVAL_NANOS} of the limiter's clock ({@link #cleanUp()} sweeps at once). Expiry reads
 * the injected {@link TimeSource}, so a manual clock drives it in tests. At most {@code maxKeys}
 * states are kept: beyond that Caffeine evicts the least valuable, and an evicted key is forgiven
 * its count, so size {@code maxKeys} above the number of keys active within a window.
 *
 * <p>Thread-safe. All operations complete synchronously; the async variants return completed
 * stages.
 */
public final class LocalRateLimiter implements RateLimiter {
  /** Default bound on stored keys: about 250 MB of sliding_window state. */
  public static final long DEFAULT_MAX_KEYS = 1_000_000L;

  /** How often, in the limiter's time, idle states are swept out of memory. */
  public static final long SWEEP_INTERVAL_NANOS = 10_000_000_000L;

  private static final int MAX_CACHED_INLINE_POLICIES = 1_024;

  private final TimeSource timeSource;
  private final RuleStore rules;
  private final Cache<String, KeyState> states;

  /** The compiled form of each rule's current policy, replaced when the rule changes. */
  private final ConcurrentHashMap<String, Compiled> compiledRules = new ConcurrentHashMap<>();

  /** Compiled inline policies, bounded: callers may send a new policy with every request. */
  private final Cache<Policy, Compiled> compiledInline =
      Caffeine.newBuilder().maximumSize(MAX_CACHED_INLINE_POLICIES).build();

  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile long nextSweepNanos;

  private LocalRateLimiter(Builder builder) {
    this.timeSource = builder.timeSource;
    this.rules = builder.rules;
    this.states =
        Caffeine.newBuilder()
            .maximumSize(builder.maxKeys)
            // Runs inside the eviction's atomic removal: no decision can apply to the state after.
            .evictionListener((String key, KeyState state, RemovalCause cause) -> retire(state))
            .build();
    this.nextSweepNanos = plusSaturated(timeSource.nowNanos(), SWEEP_INTERVAL_NANOS);
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
    List<Compiled> compiled = new ArrayList<>(Check.requireAll(checks).size());
    for (Check check : checks) {
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
    Rule.checkName(rule, "rule");
    rules.get(rule);
    StateKey.checkSubject(key);
    states
        .asMap()
        .computeIfPresent(
            StateKey.of(rule, key),
            (stateKey, state) -> {
              retire(state);
              return null;
            });
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  /** Keys holding state, approximately: idle keys count until they are swept. */
  public long keyCount() {
    return states.estimatedSize();
  }

  /**
   * Sweeps idle states out of memory and runs pending evictions now. Both otherwise happen in the
   * background as traffic flows; this is for tests and for an exact {@link #keyCount()}.
   */
  public void cleanUp() {
    sweep();
    states.cleanUp();
  }

  private Decision decide(String stateKey, Compiled compiled, long permits) {
    if (permits == 0) {
      // A peek changes nothing: no state is created and no expiry is extended.
      return peek(stateKey, compiled);
    }
    KeyState state = states.getIfPresent(stateKey);
    while (true) {
      if (state == null || !state.shape.equals(compiled.shape)) {
        state = states.asMap().compute(stateKey, (k, stored) -> current(stored, compiled));
      }
      Decision decision;
      long nowNanos;
      synchronized (state) {
        if (state.retired) {
          state = null; // removed since we looked it up: look again
          continue;
        }
        nowNanos = timeSource.nowNanos();
        if (nowNanos >= state.expiresAtNanos) {
          state.values = compiled.algorithm.newState();
        } else {
          state.values = compiled.algorithm.fit(state.values);
        }
        decision = compiled.algorithm.apply(state.values, nowNanos, permits);
        state.expiresAtNanos =
            plusSaturated(nowNanos, compiled.algorithm.untilFreshNanos(state.values, nowNanos));
      }
      if (nowNanos >= nextSweepNanos) {
        sweepInBackground(nowNanos);
      }
      return compiled.policy.shadow() ? decision.asShadow() : decision;
    }
  }

  /**
   * The state a decision under {@code compiled} should use, given what the cache holds: the stored
   * one if it is live and of the same shape, else a fresh one (retiring a replaced state).
   */
  private static KeyState current(@Nullable KeyState stored, Compiled compiled) {
    if (stored != null && !stored.retired && stored.shape.equals(compiled.shape)) {
      return stored;
    }
    if (stored != null) {
      retire(stored);
    }
    return new KeyState(compiled.algorithm.newState(), compiled.shape);
  }

  private Decision peek(String stateKey, Compiled compiled) {
    KeyState stored = states.getIfPresent(stateKey);
    long[] values = null;
    long nowNanos;
    if (stored != null && stored.shape.equals(compiled.shape)) {
      synchronized (stored) {
        nowNanos = timeSource.nowNanos();
        if (!stored.retired && nowNanos < stored.expiresAtNanos) {
          values = compiled.algorithm.fit(stored.values.clone());
        }
      }
    } else {
      nowNanos = timeSource.nowNanos();
    }
    if (values == null) {
      values = compiled.algorithm.newState();
    }
    Decision decision = compiled.algorithm.apply(values, nowNanos, 0);
    return compiled.policy.shadow() ? decision.asShadow() : decision;
  }

  /** {@code now + delay} for {@code delay >= 0}, capped rather than wrapped. */
  private static long plusSaturated(long nowNanos, long delayNanos) {
    long sum = nowNanos + delayNanos;
    return sum < nowNanos ? Long.MAX_VALUE : sum;
  }

  private static void retire(KeyState state) {
    synchronized (state) {
      state.retired = true;
    }
  }

  private void sweepInBackground(long nowNanos) {
    if (sweeping.compareAndSet(false, true)) {
      nextSweepNanos = plusSaturated(nowNanos, SWEEP_INTERVAL_NANOS);
      ForkJoinPool.commonPool()
          .execute(
              () -> {
                try {
                  sweep();
                } finally {
                  sweeping.set(false);
                }
              });
    }
  }

  /**
   * Removes every state idle past its expiry. A state is retired under its monitor first, so a
   * concurrent decision either finished before (and pushed the expiry out, so it stays) or sees it
   * retired and makes a fresh one; the removal itself happens outside the monitor, since the cache
   * takes its own locks before states' monitors, never after.
   */
  private void sweep() {
    long nowNanos = timeSource.nowNanos();
    for (Map.Entry<String, KeyState> entry : states.asMap().entrySet()) {
      KeyState state = entry.getValue();
      boolean expired;
      synchronized (state) {
        expired = !state.retired && nowNanos >= state.expiresAtNanos;
        if (expired) {
          state.retired = true;
        }
      }
      if (expired) {
        states.asMap().remove(entry.getKey(), state);
      }
    }
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
      Rule.checkName(name, "rule");
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

    Compiled(Policy policy) {
      this.policy = policy;
      this.algorithm = LimiterAlgorithm.of(policy);
      this.shape = Shape.of(policy);
    }
  }

  /**
   * A key's state, guarded by its own monitor. The cache only ever holds a state that is not
   * retired; a retired one is never written again.
   */
  private static final class KeyState {
    final Shape shape;
    long[] values;
    long expiresAtNanos = Long.MAX_VALUE;
    boolean retired;

    KeyState(long[] values, Shape shape) {
      this.values = values;
      this.shape = shape;
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
