package dev.sluice.client;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.TimeSource;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real limiter in one JVM, the algorithms of limiter-core over a synchronized map, counting the
 * invocations it serves. The client's tests compare against it and put the client in front of it.
 */
final class ReferenceLimiter implements RateLimiter {
  private final TimeSource time;
  private final Map<String, long[]> states = new HashMap<>();
  private final Map<String, Rule> rules = new TreeMap<>();
  final AtomicInteger invocations = new AtomicInteger();

  ReferenceLimiter(TimeSource time) {
    this.time = time;
  }

  ReferenceLimiter withRule(String name, Policy policy) {
    rules().put(new Rule(name, policy));
    return this;
  }

  @Override
  public synchronized Decision tryAcquire(String rule, String key, long permits) {
    invocations.incrementAndGet();
    return apply(Check.of(rule, key, permits));
  }

  @Override
  public synchronized Decision tryAcquire(Policy policy, String key, long permits) {
    invocations.incrementAndGet();
    return apply(Check.inline(policy, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return CompletableFuture.completedFuture(tryAcquire(rule, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    return CompletableFuture.completedFuture(tryAcquire(policy, key, permits));
  }

  @Override
  public synchronized List<Decision> tryAcquireAll(List<Check> checks) {
    invocations.incrementAndGet();
    // All or nothing, as one entry processor is: a bad check leaves every state as it was.
    Map<String, long[]> before = new HashMap<>();
    states.forEach((k, v) -> before.put(k, v.clone()));
    List<Decision> out = new ArrayList<>();
    try {
      for (Check c : checks) {
        out.add(apply(c));
      }
    } catch (RuntimeException e) {
      states.clear();
      states.putAll(before);
      throw e;
    }
    return out;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return CompletableFuture.completedFuture(tryAcquireAll(checks));
  }

  private Decision apply(Check c) {
    Policy policy = c.policy() != null ? c.policy() : rules().get(c.rule()).policy();
    String stateKey = c.rule() != null ? StateKey.of(c.rule(), c.key()) : StateKey.inline(c.key());
    LimiterAlgorithm algorithm = LimiterAlgorithm.of(policy);
    long[] state = algorithm.fit(states.computeIfAbsent(stateKey, k -> algorithm.newState()));
    states.put(stateKey, state);
    Decision d = algorithm.apply(state, time.nowNanos(), c.permits());
    return policy.shadow() ? d.asShadow() : d;
  }

  @Override
  public synchronized Decision peek(String rule, String key) {
    return apply(Check.of(rule, key, 0));
  }

  @Override
  public synchronized void reset(String rule, String key) {
    states.remove(StateKey.of(rule, key));
  }

  @Override
  public RuleStore rules() {
    return new RuleStore() {
      @Override
      public Optional<Rule> find(String name) {
        synchronized (ReferenceLimiter.this) {
          return Optional.ofNullable(rules.get(name));
        }
      }

      @Override
      public Collection<Rule> all() {
        synchronized (ReferenceLimiter.this) {
          return List.copyOf(rules.values());
        }
      }

      @Override
      public void put(Rule rule) {
        synchronized (ReferenceLimiter.this) {
          rules.put(rule.name(), rule);
        }
      }

      @Override
      public boolean remove(String name) {
        synchronized (ReferenceLimiter.this) {
          return rules.remove(name) != null;
        }
      }

      @Override
      public Rule get(String name) {
        return find(name).orElseThrow(() -> new UnknownRuleException(name));
      }
    };
  }
}
