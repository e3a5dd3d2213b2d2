package dev.sluice.client;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.backend.Futures;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * ten seconds by default) unless every member disables batching; entry events are sent at once, so
 * a rule change reaches the client in milliseconds without asking anything of the members'
 * configuration. Events missed while disconnected are covered by dropping everything when the
 * client (re)connects, and reading every rule again then ({@link #preload}).
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
 * <h2>Nothing waits on the rules map</h2>
 *
 * Reads of the map are asynchronous ({@link RuleStore#findAsync}), so the cache is fed in the
 * background: when the client connects (every rule), when an event says a rule changed (that rule),
 * and when a lookup finds its entry old (that rule, answered with the old entry meanwhile). A
 * caller reads memory, with one exception bounded by the call timeout: a lookup of a rule with no
 * current entry (never seen, or changed since) waits for its read at most {@code lookupTimeout},
 * the client's call timeout; the read keeps going and its answer is cached when it lands. If the
 * grid is known to be away (the breaker is open, or the client is not connected) or the read does
 * not land in time, the last answer stands in if there is one; if there is none the lookup throws
 * {@link GridUnavailableException}, and a read that timed out counts as a grid failure (the breaker
 * opens), so the check that follows is answered by the rule's failure policy without waiting a
 * second time. A REST node resolves the rule before every check; this is what keeps a check within
 * its deadline, and what lets a rule the node never saw be answered by the failure policy while the
 * grid is away.
 *
 * <p>Answers made without the grid ({@link #known}) never wait at all: the rule as last seen, or
 * nothing, with a read sent so that the next call knows. A store whose rules are in this JVM
 * answers its reads at once, so for it nothing is ever missing.
 *
 * <p>While the breaker is open no refresh is sent at all, and a refresh that fails leaves the last
 * answer in place: cached rules are served however old they are.
 */
final class CachedRuleStore implements RuleStore {
  /** The longest a cached rule is served without asking the map again, events or not. */
  static final long MAX_STALENESS_NANOS = 500_000_000L;

  /**
   * An answer of the map. {@code current} is false once an event or a reconnect said it may have
   * changed: lookups then wait for a new read (within the timeout) but answers made without the
   * grid still use it.
   */
  private record Cached(Optional<Rule> rule, long fetchedAtNanos, boolean current) {
    Cached outdated() {
      return new Cached(rule, fetchedAtNanos, false);
    }
  }

  /** A read under way, and the generation it began in. */
  private record Read(CompletableFuture<Optional<Rule>> answer, long generation) {}

  private final RuleStore store;
  private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Read> reads = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private final Consumer<String> onChange;
  private final BooleanSupplier gridUnavailable;
  private final Runnable onGridFailure;
  private final long lookupTimeoutNanos;
  private final LongSupplier nanoClock;

  /** Where every rule is read at once (a blocking call), off the callers' threads. */
  private final ExecutorService preloader =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "sluice-rules-preload");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * @param onChange told the name of every rule that changed (or "" when all may have)
   * @param gridUnavailable whether the grid is known to be unreachable right now (the breaker is
   *     open, or the client is not connected): lookups then serve what is cached without asking
   * @param onGridFailure told when a read a caller waited for did not land in time
   * @param lookupTimeoutNanos the longest a lookup without a current entry waits for its read
   * @param nanoClock the monotonic clock of the staleness bound ({@code System::nanoTime}; tests
   *     move a manual one)
   */
  CachedRuleStore(
      RuleStore store,
      Consumer<String> onChange,
      BooleanSupplier gridUnavailable,
      Runnable onGridFailure,
      long lookupTimeoutNanos,
      LongSupplier nanoClock) {
    this.store = store;
    this.onChange = onChange;
    this.gridUnavailable = gridUnavailable;
    this.onGridFailure = onGridFailure;
    this.lookupTimeoutNanos = lookupTimeoutNanos;
    this.nanoClock = nanoClock;
  }

  /**
   * {@inheritDoc}
   *
   * @throws GridUnavailableException if the rule was never seen here and the grid cannot tell
   *     within the lookup timeout
   */
  @Override
  public Optional<Rule> find(String name) {
    Rule.checkName(name);
    Cached cached = cache.get(name);
    if (cached != null && cached.current()) {
      refreshIfOld(name, cached);
      return cached.rule();
    }
    if (gridUnavailable.getAsBoolean()) {
      if (cached != null) {
        return cached.rule();
      }
      throw unknownHere(name, null);
    }
    CompletableFuture<Optional<Rule>> read = read(name, cached);
    try {
      return read.get(lookupTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return lastAnswer(name, cached, e);
    } catch (TimeoutException e) {
      onGridFailure.run();
      return lastAnswer(name, cached, e);
    } catch (ExecutionException e) {
      Throwable cause = Futures.unwrap(e);
      if (cause instanceof IllegalArgumentException bad) {
        throw bad; // a bad name: the request is wrong, not the grid
      }
      return lastAnswer(name, cached, cause);
    }
  }

  /**
   * {@link #find}, without blocking the caller: what {@code find} would return, as a future that a
   * current entry completes at once and a read completes when it lands (at most the lookup timeout
   * later, after which the last answer stands in, as for {@code find}). For callers on an event
   * loop, such as a reactive HTTP gate.
   */
  @Override
  public CompletableFuture<Optional<Rule>> findAsync(String name) {
    Rule.checkName(name);
    Cached cached = cache.get(name);
    if (cached != null && cached.current()) {
      refreshIfOld(name, cached);
      return CompletableFuture.completedFuture(cached.rule());
    }
    if (gridUnavailable.getAsBoolean()) {
      return cached != null
          ? CompletableFuture.completedFuture(cached.rule())
          : CompletableFuture.failedFuture(unknownHere(name, null));
    }
    // A copy: the read is shared with other lookups, and its own future must not time out.
    return read(name, cached)
        .copy()
        .orTimeout(lookupTimeoutNanos, TimeUnit.NANOSECONDS)
        .exceptionally(
            failure -> {
              Throwable cause = Futures.unwrap(failure);
              if (cause instanceof IllegalArgumentException bad) {
                throw bad; // a bad name: the request is wrong, not the grid
              }
              if (cause instanceof TimeoutException) {
                onGridFailure.run();
              }
              return lastAnswer(name, cached, cause);
            });
  }

  /**
   * The rule as last seen here, however old, without waiting: for answers made without the grid (a
   * failure policy's answer reports the rule's limit; the denied cache asks whether the rule counts
   * denials). A rule with no current entry is read, and answered from that read if it lands at once
   * (a store in this JVM); otherwise the last answer, or nothing, and the next call knows.
   */
  Optional<Rule> known(String name) {
    Cached cached = cache.get(name);
    if (cached != null && cached.current()) {
      refreshIfOld(name, cached);
      return cached.rule();
    }
    if (!gridUnavailable.getAsBoolean()) {
      CompletableFuture<Optional<Rule>> read = read(name, cached);
      if (read.isDone() && !read.isCompletedExceptionally()) {
        return read.join();
      }
    }
    return cached == null ? Optional.empty() : cached.rule();
  }

  /** What is cached for {@code name}, however old, without asking anything. */
  Optional<Rule> cached(String name) {
    Cached cached = cache.get(name);
    return cached == null ? Optional.empty() : cached.rule();
  }

  /**
   * Every rule, from the map; the answer also fills the cache (a REST node lists the rules, and
   * every rule is read when the client connects, so that each has a local answer should the grid go
   * away before its first check).
   */
  @Override
  public Collection<Rule> all() {
    long before = generation.get();
    long now = nanoClock.getAsLong();
    Collection<Rule> all = store.all();
    if (generation.get() == before) {
      for (Rule rule : all) {
        cache.compute(
            rule.name(),
            (name, old) ->
                old == null || !old.current() ? new Cached(Optional.of(rule), now, true) : old);
      }
    }
    return all;
  }

  /** Reads every rule into the cache, off the caller's thread; a failure is left for lookups. */
  void preload() {
    try {
      preloader.execute(
          () -> {
            try {
              all();
            } catch (RuntimeException e) {
              // The grid went away again: lookups read what they need when it is back.
            }
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  @Override
  public void put(Rule rule) {
    store.put(Rule.require(rule));
    invalidate(rule.name());
  }

  @Override
  public boolean remove(String name) {
    boolean removed = store.remove(Rule.checkName(name));
    invalidate(name);
    return removed;
  }

  /** Whether a lookup of {@code name} would be served from memory now without a refresh. */
  boolean isCached(String name) {
    Cached cached = cache.get(name);
    return cached != null
        && cached.current()
        && nanoClock.getAsLong() - cached.fetchedAtNanos() < MAX_STALENESS_NANOS;
  }

  /** The cluster says {@code name} changed: the entry is outdated, and read again. */
  void invalidate(String name) {
    generation.incrementAndGet();
    Cached outdated = cache.computeIfPresent(name, (key, cached) -> cached.outdated());
    onChange.accept(name);
    if (!gridUnavailable.getAsBoolean()) {
      read(name, outdated);
    }
  }

  /** Changes may have been missed (a reconnect): every entry is outdated, and all read again. */
  void invalidateAll() {
    generation.incrementAndGet();
    cache.replaceAll((name, cached) -> cached.outdated());
    onChange.accept("");
    preload();
  }

  /** Stops the preload thread. */
  void close() {
    preloader.shutdownNow();
  }

  private void refreshIfOld(String name, Cached cached) {
    if (nanoClock.getAsLong() - cached.fetchedAtNanos() >= MAX_STALENESS_NANOS
        && !gridUnavailable.getAsBoolean()) {
      read(name, cached);
    }
  }

  /**
   * One read of {@code name}, shared by every lookup that needs it meanwhile; its answer is cached
   * when it lands. {@code cached} is the answer it replaces, if any: a read that fails leaves it in
   * place, and one that finds a different rule reports the change.
   */
  private CompletableFuture<Optional<Rule>> read(String name, @Nullable Cached cached) {
    long before = generation.get();
    Read mine = new Read(new CompletableFuture<>(), before);
    // A read begun before an invalidation may bring the old rule: it is not shared after one.
    Read running =
        reads.compute(
            name, (key, other) -> other != null && other.generation() == before ? other : mine);
    if (running != mine) {
      return running.answer();
    }
    long startedAt = nanoClock.getAsLong();
    CompletableFuture<Optional<Rule>> answer;
    try {
      answer = store.findAsync(name);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (found, failure) -> landed(name, cached, before, startedAt, mine, found, failure));
    return mine.answer();
  }

  private void landed(
      String name,
      @Nullable Cached cached,
      long generationBefore,
      long startedAt,
      Read read,
      @Nullable Optional<Rule> found,
      @Nullable Throwable failure) {
    if (failure != null || found == null) {
      reads.remove(name, read);
      read.answer()
          .completeExceptionally(
              failure != null ? Futures.unwrap(failure) : new IllegalStateException("no answer"));
      return;
    }
    if (cached != null && cached.current() && !cached.rule().equals(found)) {
      // A change whose event has not arrived (or never will); reported before the new rule is
      // cached, so no lookup sees the new rule while denials under the old one still stand.
      onChange.accept(name);
    }
    if (generation.get() == generationBefore) {
      cache.put(name, new Cached(found, startedAt, true));
    }
    reads.remove(name, read);
    read.answer().complete(found);
  }

  /** When a read could not answer: the last answer if there is one, else the grid's absence. */
  private static Optional<Rule> lastAnswer(
      String name, @Nullable Cached cached, @Nullable Throwable why) {
    if (cached != null) {
      return cached.rule();
    }
    throw unknownHere(name, why);
  }

  private static GridUnavailableException unknownHere(String name, @Nullable Throwable cause) {
    String message =
        "rule '"
            + name
            + "' has not been seen by this client and the grid cannot be asked right now;"
            + " decisions under it follow the failure policy";
    return cause == null
        ? new GridUnavailableException(message)
        : new GridUnavailableException(message, cause);
  }
}
