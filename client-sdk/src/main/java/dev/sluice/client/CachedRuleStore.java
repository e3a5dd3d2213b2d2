package dev.sluice.client;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

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
 *
 * <p>Events are the fast path, not the guarantee: a listener registration can lag behind a new
 * connection, and a disconnect can drop events. So a cached rule is also served for at most {@value
 * #MAX_STALENESS_NANOS} ns before the map is asked again (one small read per rule per half second
 * at most), and a refresh that finds a different rule reports the change as an event would. A rule
 * change therefore reaches every lookup within half a second even when its event is lost.
 *
 * <p>While the grid is unreachable the last answer is served however old it is: when the client's
 * breaker is open a lookup does not ask the map at all (it would wait for, or fail with, the grid),
 * and when asking fails the cached answer stands in. A REST node in front of the grid resolves the
 * rule before every check, so without this an outage would turn every check into an error instead
 * of an answer by the rule's failure policy. A rule never looked up before the outage has no
 * answer: the grid's error is thrown.
 */
final class CachedRuleStore implements RuleStore {
  private final RuleStore store;

  /** The longest a cached rule is served without asking the map again, events or not. */
  static final long MAX_STALENESS_NANOS = 500_000_000L;

  private record Cached(Optional<Rule> rule, long fetchedAtNanos) {}

  private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private final Consumer<String> onChange;
  private final BooleanSupplier gridUnavailable;
  private final LongSupplier nanoClock;

  /**
   * @param onChange told the name of every rule that changed (or "" when all may have)
   * @param gridUnavailable whether the grid is known to be unreachable right now (the client's
   *     breaker is open): lookups then serve what is cached without asking
   * @param nanoClock the monotonic clock of the staleness bound (the client's)
   */
  CachedRuleStore(
      RuleStore store,
      Consumer<String> onChange,
      BooleanSupplier gridUnavailable,
      LongSupplier nanoClock) {
    this.store = store;
    this.onChange = onChange;
    this.gridUnavailable = gridUnavailable;
    this.nanoClock = nanoClock;
  }

  @Override
  public Optional<Rule> find(String name) {
    Cached cached = cache.get(name);
    long now = nanoClock.getAsLong();
    if (cached != null
        && (now - cached.fetchedAtNanos() < MAX_STALENESS_NANOS
            || gridUnavailable.getAsBoolean())) {
      return cached.rule();
    }
    long before = generation.get();
    Optional<Rule> found;
    try {
      found = store.find(name);
    } catch (IllegalArgumentException e) {
      throw e; // a bad name: the request is wrong, not the grid
    } catch (RuntimeException e) {
      if (cached != null) {
        return cached.rule(); // the grid failed: the last answer stands in
      }
      throw e;
    }
    if (generation.get() == before) {
      cache.put(name, new Cached(found, now));
    }
    if (cached != null && !cached.rule().equals(found)) {
      onChange.accept(name); // a change whose event has not arrived (or never will)
    }
    return found;
  }

  /**
   * Every rule, from the map; the answer also fills the cache (a REST node lists the rules at
   * start, so that each has a local answer should the grid go away before its first check).
   */
  @Override
  public Collection<Rule> all() {
    long before = generation.get();
    long now = nanoClock.getAsLong();
    Collection<Rule> all = store.all();
    if (generation.get() == before) {
      for (Rule rule : all) {
        cache.putIfAbsent(rule.name(), new Cached(Optional.of(rule), now));
      }
    }
    return all;
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

  /**
   * What is cached for {@code name}, however old, without asking the grid: for answers made without
   * it (a failure policy's answer reports the rule's limit).
   */
  Optional<Rule> cached(String name) {
    Cached cached = cache.get(name);
    return cached == null ? Optional.empty() : cached.rule();
  }

  /** Whether a lookup of {@code name} would be served from memory now. */
  boolean isCached(String name) {
    Cached cached = cache.get(name);
    return cached != null && nanoClock.getAsLong() - cached.fetchedAtNanos() < MAX_STALENESS_NANOS;
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
