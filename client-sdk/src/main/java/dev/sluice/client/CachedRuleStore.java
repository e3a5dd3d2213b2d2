package dev.sluice.client;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

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
 * connection, and a disconnect can drop events. So a cached rule older than {@value
 * #MAX_STALENESS_NANOS} ns is read again from the map (one small read per rule per half second at
 * most), and a refresh that finds a different rule reports the change as an event would. A rule
 * change therefore reaches every lookup within half a second and one round trip even when its event
 * is lost.
 *
 * <p>That refresh never makes a caller wait: the lookup that finds its entry old answers with it
 * and hands the read to a background thread (one read per rule at a time). A caller waits only for
 * a rule it has no answer for. This is what keeps an unreachable grid from costing more than the
 * call timeout: a REST node resolves the rule before every check, and a read of the map from a grid
 * that hangs (a stopped process, a network that drops packets) would block for Hazelcast's
 * invocation timeout, seconds, before the decision's own timeout even starts. While the breaker is
 * open no refresh is sent at all, and a refresh that fails leaves the last answer in place. A rule
 * never looked up before an outage has no answer: the grid's error is thrown.
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
  private final Set<String> refreshing = ConcurrentHashMap.newKeySet();
  private final ExecutorService refresher =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "sluice-rules-refresh");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * @param onChange told the name of every rule that changed (or "" when all may have)
   * @param gridUnavailable whether the grid is known to be unreachable right now (the client's
   *     breaker is open): lookups then serve what is cached without asking
   * @param nanoClock the monotonic clock of the staleness bound ({@code System::nanoTime}; tests
   *     move a manual one)
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
    if (cached == null) {
      return fetch(name, null);
    }
    if (nanoClock.getAsLong() - cached.fetchedAtNanos() >= MAX_STALENESS_NANOS
        && !gridUnavailable.getAsBoolean()) {
      refreshLater(name, cached);
    }
    return cached.rule();
  }

  /** Reads {@code name} again on the refresh thread, unless a read of it is already under way. */
  private void refreshLater(String name, Cached cached) {
    if (!refreshing.add(name)) {
      return;
    }
    try {
      refresher.execute(
          () -> {
            try {
              fetch(name, cached);
            } catch (RuntimeException e) {
              // The grid failed: the cached answer stays, and the next old lookup tries again.
            } finally {
              refreshing.remove(name);
            }
          });
    } catch (RejectedExecutionException e) {
      refreshing.remove(name); // closed
    }
  }

  /** Reads {@code name} from the map and caches it; {@code cached} is the answer it replaces. */
  private Optional<Rule> fetch(String name, @Nullable Cached cached) {
    long now = nanoClock.getAsLong();
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
    if (cached != null && !cached.rule().equals(found)) {
      // A change whose event has not arrived (or never will); reported before the new rule is
      // cached, so no lookup sees the new rule while denials under the old one still stand.
      onChange.accept(name);
    }
    if (generation.get() == before) {
      cache.put(name, new Cached(found, now));
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

  /** Stops the refresh thread. */
  void close() {
    refresher.shutdownNow();
  }

  /** Changes may have been missed (a reconnect): forget everything. */
  void invalidateAll() {
    generation.incrementAndGet();
    cache.clear();
    onChange.accept("");
  }
}
