package dev.sluice.rest;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.TimeSource;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** TEMPORARY until LocalRateLimiter lands on main. */
final class ScratchLimiter implements RateLimiter {
  private final TimeSource time;
  private final Map<String, long[]> states = new ConcurrentHashMap<>();
  private final Map<String, Rule> rules = new ConcurrentSkipListMap<>();

  ScratchLimiter(TimeSource time) {
    this.time = time;
  }

  @Override
  public synchronized Decision tryAcquire(String rule, String key, long permits) {
    return decide(StateKey.of(rule, key), rules().get(rule).policy(), permits);
  }

  @Override
  public synchronized Decision tryAcquire(Policy policy, String key, long permits) {
    return decide(StateKey.inline(key), policy, permits);
  }

  private Decision decide(String stateKey, Policy policy, long permits) {
    LimiterAlgorithm algorithm = LimiterAlgorithm.of(policy);
    long[] state = algorithm.fit(states.computeIfAbsent(stateKey, k -> algorithm.newState()));
    states.put(stateKey, state);
    Decision d = algorithm.apply(state, time.nowNanos(), permits);
    return policy.shadow() ? d.asShadow() : d;
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
    List<Decision> out = new ArrayList<>();
    for (Check c : checks) {
      out.add(
          c.rule() != null
              ? tryAcquire(c.rule(), c.key(), c.permits())
              : tryAcquire(c.policy(), c.key(), c.permits()));
    }
    return out;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return CompletableFuture.completedFuture(tryAcquireAll(checks));
  }

  @Override
  public synchronized Decision peek(String rule, String key) {
    return tryAcquire(rule, key, 0);
  }

  @Override
  public void reset(String rule, String key) {
    states.remove(StateKey.of(rule, key));
  }

  @Override
  public RuleStore rules() {
    return new RuleStore() {
      @Override
      public Optional<Rule> find(String name) {
        return Optional.ofNullable(rules.get(name));
      }

      @Override
      public Collection<Rule> all() {
        return List.copyOf(rules.values());
      }

      @Override
      public void put(Rule rule) {
        rules.put(rule.name(), rule);
      }

      @Override
      public boolean remove(String name) {
        return rules.remove(name) != null;
      }
    };
  }
}
