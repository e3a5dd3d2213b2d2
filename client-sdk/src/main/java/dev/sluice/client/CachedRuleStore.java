package dev.sluice.client;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The client's near cache of rules: lookups are served from memory after the first, and the cluster
 * invalidates them by pushing every change of the rules map to the client as an entry event.
 *
 * <p>Why not Hazelcast's own client near cache? Its invalidations are batched on the members (up to
 * ten seconds by default, DESIGN §9) unless every member disables batching; entry events are sent
 * at once, so a rule change reaches the client in milliseconds without asking anything of the
 * members' configuration. Events missed while disconnected are covered by dropping everything when
 * the client (re)connects.
 *
 * <p>A lookup racing an invalidation must not put the stale answer back: each invalidation bumps a
 * generation, and an answer is cached only if no invalidation happened while it was fetched.
 * Counters are never cached, only rules.
 */
final class CachedRuleStore implements RuleStore {
  private final RuleStore store;
  private final ConcurrentHashMap<String, Optional<Rule>> cache = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private final Consumer<String> onChange;

  /**
   * @param onChange told the name of every rule that changed (or "" when all may have)
   */
  CachedRuleStore(RuleStore store, Consumer<String> onChange) {
    this.store = store;
    this.onChange = onChange;
  }

  @Override
  public Optional<Rule> find(String name) {
    Optional<Rule> cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    long before = generation.get();
    Optional<Rule> found = store.find(name);
    if (generation.get() == before) {
      cache.putIfAbsent(name, found);
    }
    return found;
  }

  @Override
  public Collection<Rule> all() {
    return store.all();
  }

  @Override
  public void put(Rule rule) {
    store.put(rule);
    invalidate(rule.name());
  }

  @Override
  public boolean remove(String name) {
    boolean removed = store.remove(name);
    invalidate(name);
    return removed;
  }

  /** Whether a lookup of {@code name} would be served from memory. */
  boolean isCached(String name) {
    return cache.containsKey(name);
  }

  /** The cluster says {@code name} changed. */
  void invalidate(String name) {
    generation.incrementAndGet();
    cache.remove(name);
    onChange.accept(name);
  }

  /** Changes may have been missed (a reconnect): forget everything. */
  void invalidateAll() {
    generation.incrementAndGet();
    cache.clear();
    onChange.accept("");
  }
}
