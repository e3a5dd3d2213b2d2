package dev.sluice.core.rules;

import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.pipeline.RuleBook;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * A client's one copy of the rules of a store that lives elsewhere (the grid's rules map, seen from
 * a Hazelcast client): what its rule lookups answer ({@link #find}), what its batches are validated
 * with ({@link #fetch} then {@link #resolve}), and what the failure policy and the denied-until
 * cache read without waiting ({@link #known}). One map, one staleness rule, one place that reads
 * and one that invalidates.
 *
 * <h2>How fresh a copy is</h2>
 *
 * The cluster pushes every change of the rules map as an entry event, and the grid runtime hands
 * each one to {@link #invalidate} (a reconnect, when events may have been missed, to {@link
 * #invalidateAll}). An invalidated copy is <em>outdated</em>: the next lookup or batch that names
 * the rule waits for a new read. Why not Hazelcast's own client near cache? Its invalidations are
 * batched on the members (up to ten seconds by default) unless every member disables batching;
 * entry events are sent at once, so a change reaches the client in milliseconds.
 *
 * <p>Events are the fast path, not the guarantee: a registration can lag behind a new connection,
 * and a disconnect can drop events. So a copy older than {@value #MAX_STALENESS_NANOS} ns is read
 * again in the background while it still answers (one small read per rule per half second at most),
 * and a read that finds a different rule reports the change as an event would ({@link #onChange}).
 * A rule change therefore reaches every lookup within half a second and one round trip even when
 * its event is lost. Reading a rule for every batch instead cost a round trip per batch, which
 * halved a client's hot-key throughput; a rule removed within the half second is still caught by
 * its keys' owners, which answer "unknown rule".
 *
 * <h2>Nothing waits on the rules map</h2>
 *
 * Reads are asynchronous ({@link RuleStore#findAsync}) and shared: concurrent lookups of a rule
 * wait for one read. A read that races an invalidation of its rule must not put the stale answer
 * back: the invalidation takes the read out of {@code reads} (all of them, on a reconnect) and
 * starts the next, and the earlier read's callers get the answer of the read that superseded it, so
 * that a lookup that waited finds a copy here. A change of another rule meanwhile leaves a read
 * alone: with one counter for every rule, a client that saw rules change all the time (the events
 * of rules it never asks for included) would drop the copies it had just waited for. A caller reads
 * memory, except for a rule with no current copy (never seen, or outdated): a lookup waits for its
 * read at most the {@link Guard}'s lookup timeout (a client's call timeout), then the last copy
 * stands in if there is one, and otherwise the lookup throws {@link LimiterUnavailableException}
 * naming the rule, so that the check that follows is answered by its failure policy. While the
 * guard says the grid is away, nothing is read at all and copies are served however old they are. A
 * read that fails leaves the last copy in place.
 *
 * <p>A store whose rules are in this JVM answers its reads at once, so over it nothing is ever
 * missing. Thread-safe.
 */
public final class RuleCache implements RuleStore {
  /** The longest a copy is served without asking the store again, events or not. */
  public static final long MAX_STALENESS_NANOS = 500_000_000L;

  /** Copies kept at most (unknown names included); beyond it all are dropped and read again. */
  static final int MAX_COPIES = 10_000;

  /**
   * What a client's lookups answer to: whether the grid is known to be away (its breaker is open,
   * or it is not connected), what to tell when a lookup's read did not land in time, and how long a
   * lookup waits for one.
   */
  public record Guard(BooleanSupplier gridAway, Runnable lookupTimedOut, long lookupTimeoutNanos) {

    /** Never away, and lookups wait for their read as long as the store takes. */
    public static final Guard NONE = new Guard(() -> false, () -> {}, Long.MAX_VALUE);

    public Guard {
      Objects.requireNonNull(gridAway, "gridAway");
      Objects.requireNonNull(lookupTimedOut, "lookupTimedOut");
      if (lookupTimeoutNanos <= 0) {
        throw new IllegalArgumentException(
            "lookupTimeoutNanos must be positive, was " + lookupTimeoutNanos);
      }
    }
  }

  /**
   * A read's answer. {@code current} is false once an event or a reconnect said it may have
   * changed: lookups and batches then wait for a new read, but answers made without the grid still
   * use it.
   */
  private record Copy(Optional<Rule> rule, long fetchedAtNanos, boolean current) {
    Copy outdated() {
      return new Copy(rule, fetchedAtNanos, false);
    }
  }

  /** A read under way; it is current while {@code reads} holds it for its rule. */
  private record Read(CompletableFuture<Optional<Rule>> answer) {}

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final RuleStore store;
  private final LongSupplier nanoClock;
  private final ConcurrentHashMap<String, Copy> copies = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Read> reads = new ConcurrentHashMap<>();
  // Moves with every invalidation: a read of every rule (all()) that raced one keeps none of it.
  private final AtomicLong generation = new AtomicLong();
  private final AtomicLong version = new AtomicLong();
  private final List<Consumer<String>> changeListeners = new CopyOnWriteArrayList<>();
  private final RuleBook book;
  private volatile Guard guard = Guard.NONE;
  private volatile @Nullable ExecutorService preloader;
  private volatile boolean closed;

  /**
   * @param store where the rules are (its {@link RuleStore#findAsync} should not block)
   * @param nanoClock the monotonic clock of the staleness bound ({@code System::nanoTime}; tests
   *     move a manual one)
   */
  public RuleCache(RuleStore store, LongSupplier nanoClock) {
    this.store = Objects.requireNonNull(store, "store");
    this.nanoClock = nanoClock;
    this.book =
        new RuleBook(
            name -> {
              Copy copy = copies.get(name);
              return copy == null ? null : copy.rule().map(Rule::policy).orElse(null);
            });
  }

  /**
   * How lookups treat the grid from now on: a client in front of this runtime gives its breaker,
   * its link and its call timeout (the last client to wrap a runtime decides).
   */
  public void guard(Guard guard) {
    this.guard = Objects.requireNonNull(guard, "guard");
  }

  /**
   * Tells {@code listener} the name of every rule that changed, or "" when all may have; returns
   * how to stop telling it.
   */
  public Runnable onChange(Consumer<String> listener) {
    changeListeners.add(Objects.requireNonNull(listener, "listener"));
    return () -> changeListeners.remove(listener);
  }

  /**
   * {@inheritDoc}
   *
   * @throws LimiterUnavailableException if the rule has no copy here and the store cannot tell
   *     within the lookup timeout
   */
  @Override
  public Optional<Rule> find(String name) {
    Rule.checkName(name);
    Copy copy = copies.get(name);
    Guard lookups = guard;
    if (copy != null && copy.current()) {
      refreshIfOld(name, copy, lookups);
      return copy.rule();
    }
    if (lookups.gridAway().getAsBoolean()) {
      return lastAnswer(name, copy, null);
    }
    CompletableFuture<Optional<Rule>> read = read(name, copy);
    try {
      return lookups.lookupTimeoutNanos() == Long.MAX_VALUE
          ? read.get()
          : read.get(lookups.lookupTimeoutNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return lastAnswer(name, copy, e);
    } catch (TimeoutException e) {
      lookups.lookupTimedOut().run();
      return lastAnswer(name, copy, e);
    } catch (ExecutionException e) {
      return lastAnswer(name, copy, requestError(e));
    }
  }

  /**
   * {@link #find}, without blocking the caller: a current copy completes it at once, a read when it
   * lands (at most the lookup timeout later, after which the last copy stands in, as for {@code
   * find}). For callers on an event loop, such as a reactive HTTP gate.
   */
  @Override
  public CompletableFuture<Optional<Rule>> findAsync(String name) {
    Rule.checkName(name);
    Copy copy = copies.get(name);
    Guard lookups = guard;
    if (copy != null && copy.current()) {
      refreshIfOld(name, copy, lookups);
      return CompletableFuture.completedFuture(copy.rule());
    }
    if (lookups.gridAway().getAsBoolean()) {
      return copy != null
          ? CompletableFuture.completedFuture(copy.rule())
          : CompletableFuture.failedFuture(unknownHere(name, null));
    }
    // A copy of the future: the read is shared with other lookups, and must not time out for them.
    CompletableFuture<Optional<Rule>> answer = read(name, copy).copy();
    if (lookups.lookupTimeoutNanos() != Long.MAX_VALUE) {
      answer = answer.orTimeout(lookups.lookupTimeoutNanos(), TimeUnit.NANOSECONDS);
    }
    return answer.exceptionally(
        failure -> {
          Throwable cause = requestError(failure);
          if (cause instanceof TimeoutException) {
            lookups.lookupTimedOut().run();
          }
          return lastAnswer(name, copy, cause);
        });
  }

  /**
   * The rule as last seen here, however old, without waiting: for answers made without the grid (a
   * failure policy's answer reports the rule's limit; the denied cache asks whether the rule counts
   * denials). A rule with no current copy is read, and answered from that read if it lands at once
   * (a store in this JVM); otherwise the last copy, or nothing, and the next call knows.
   */
  public Optional<Rule> known(String name) {
    Copy copy = copies.get(name);
    Guard lookups = guard;
    if (copy != null && copy.current()) {
      refreshIfOld(name, copy, lookups);
      return copy.rule();
    }
    if (!lookups.gridAway().getAsBoolean()) {
      CompletableFuture<Optional<Rule>> read = read(name, copy);
      if (read.isDone() && !read.isCompletedExceptionally()) {
        return read.join();
      }
    }
    return copy == null ? Optional.empty() : copy.rule();
  }

  /**
   * Makes a copy of every rule in {@code names} known here for {@link #resolve}; never blocks. It
   * completes at once when each has a current copy (an old one is read again in the background and
   * answers meanwhile), otherwise when the missing and outdated ones are read; it fails only as the
   * read of a rule with no copy at all fails (an outdated copy stands in for a failed read).
   */
  public CompletableFuture<Void> fetch(Set<String> names) {
    List<CompletableFuture<?>> pending = null;
    for (String name : names) {
      Copy copy = copies.get(name);
      if (copy != null && copy.current()) {
        refreshIfOld(name, copy, Guard.NONE);
        continue;
      }
      CompletableFuture<Optional<Rule>> read = read(name, copy);
      if (copy != null) {
        read = read.exceptionally(failure -> copy.rule()); // the outdated copy stands in
      }
      if (pending == null) {
        pending = new ArrayList<>(names.size());
      }
      pending.add(read);
    }
    if (pending == null) {
      return DONE;
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * The compiled policy of {@code ref} from the copies: an inline policy always, a named rule if a
   * copy of it is here ({@link #fetch}), else null.
   *
   * @throws UnknownRuleException if the copy says there is no such rule; the copy is dropped, so
   *     that a rule created a moment later is read at once
   */
  public @Nullable CompiledPolicy resolve(PolicyRef ref) {
    if (ref instanceof PolicyRef.Named named && !copies.containsKey(named.rule())) {
      return null;
    }
    try {
      return book.resolve(ref);
    } catch (UnknownRuleException e) {
      if (copies.remove(e.rule()) != null) {
        version.incrementAndGet();
      }
      throw e;
    }
  }

  /** A number that moves whenever a copy {@link #resolve} reads changes here. */
  public long version() {
    return version.get();
  }

  /** Whether a lookup of {@code name} would be served from memory now without a refresh. */
  public boolean isCached(String name) {
    Copy copy = copies.get(name);
    return copy != null
        && copy.current()
        && nanoClock.getAsLong() - copy.fetchedAtNanos() < MAX_STALENESS_NANOS;
  }

  /**
   * Every rule, from the store; the answer also fills the copies (a REST node lists the rules, and
   * every rule is read when a client connects, so that each has a local answer should the grid go
   * away before its first check).
   */
  @Override
  public Collection<Rule> all() {
    long before = generation.get();
    long now = nanoClock.getAsLong();
    Collection<Rule> all = store.all();
    if (generation.get() == before) {
      for (Rule rule : all) {
        Copy read = new Copy(Optional.of(rule), now, true);
        Copy kept =
            copies.compute(rule.name(), (name, old) -> old == null || !old.current() ? read : old);
        if (kept == read) {
          version.incrementAndGet();
        }
      }
    }
    return all;
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

  /** The store says {@code name} changed: its copy is outdated, and read again. */
  public void invalidate(String name) {
    generation.incrementAndGet();
    reads.remove(name); // a read under way may bring the rule as it was: superseded by the next
    Copy outdated = copies.computeIfPresent(name, (key, copy) -> copy.outdated());
    changed(name);
    if (!guard.gridAway().getAsBoolean()) {
      read(name, outdated);
    }
  }

  /** Changes may have been missed (a reconnect): every copy is outdated, and all read again. */
  public void invalidateAll() {
    generation.incrementAndGet();
    reads.clear();
    copies.replaceAll((name, copy) -> copy.outdated());
    changed("");
    preload();
  }

  /**
   * Reads every rule into the copies, on a thread of its own ({@link RuleStore#all} blocks); a
   * failure is left for lookups, which read what they need when the store answers again.
   */
  public void preload() {
    try {
      preloader()
          .execute(
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

  /** Stops the preload thread, if one was started. */
  public void close() {
    closed = true;
    ExecutorService thread = preloader;
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private synchronized ExecutorService preloader() {
    ExecutorService thread = preloader;
    if (thread == null) {
      thread =
          Executors.newSingleThreadExecutor(
              runnable -> {
                Thread preload = new Thread(runnable, "sluice-rules-preload");
                preload.setDaemon(true);
                return preload;
              });
      if (closed) {
        thread.shutdown();
      }
      preloader = thread;
    }
    return thread;
  }

  private void refreshIfOld(String name, Copy copy, Guard lookups) {
    if (nanoClock.getAsLong() - copy.fetchedAtNanos() >= MAX_STALENESS_NANOS
        && !lookups.gridAway().getAsBoolean()) {
      read(name, copy);
    }
  }

  /**
   * One read of {@code name}, shared by every caller that needs it meanwhile; its answer is kept
   * when it lands. {@code copy} is the one it replaces, if any: a read that fails leaves it in
   * place, and one that finds a different rule reports the change.
   */
  private CompletableFuture<Optional<Rule>> read(String name, @Nullable Copy copy) {
    Read mine = new Read(new CompletableFuture<>());
    // Only a current read is in reads: one begun before an invalidation of its rule was taken out.
    Read running = reads.computeIfAbsent(name, key -> mine);
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
    answer.whenComplete((found, failure) -> landed(name, copy, startedAt, mine, found, failure));
    return mine.answer();
  }

  private void landed(
      String name,
      @Nullable Copy copy,
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
    boolean differs = copy == null || !copy.rule().equals(found);
    if (copy != null && copy.current() && differs) {
      // A change whose event has not arrived (or never will); reported before the new rule is
      // kept, so that no lookup sees the new rule while denials under the old one still stand.
      changed(name);
    }
    // Kept only while this read is current, atomically with an invalidation of the rule, which
    // takes it out of reads before it marks the copy outdated.
    boolean[] kept = {false};
    reads.computeIfPresent(
        name,
        (key, running) -> {
          if (running != read) {
            return running;
          }
          if (copies.size() >= MAX_COPIES && !copies.containsKey(name)) {
            copies.clear();
            version.incrementAndGet();
          }
          copies.put(name, new Copy(found, startedAt, true));
          if (differs) {
            version.incrementAndGet();
          }
          kept[0] = true;
          return null;
        });
    if (kept[0]) {
      read.answer().complete(found);
      return;
    }
    // Superseded: the rule changed while this read was out, and it may bring the rule as it was.
    // Its callers get the answer of the read that follows the change.
    read(name, copies.get(name))
        .whenComplete(
            (next, nextFailure) -> {
              if (nextFailure != null) {
                read.answer().completeExceptionally(nextFailure);
              } else {
                read.answer().complete(next);
              }
            });
  }

  private void changed(String name) {
    for (Consumer<String> listener : changeListeners) {
      listener.accept(name);
    }
  }

  /** The cause of a failed read; a bad name is thrown: the request is wrong, not the grid. */
  private static Throwable requestError(Throwable failure) {
    Throwable cause = Futures.unwrap(failure);
    if (cause instanceof IllegalArgumentException bad) {
      throw bad;
    }
    return cause;
  }

  /** When a read could not answer: the last copy if there is one, else the grid's absence. */
  private static Optional<Rule> lastAnswer(
      String name, @Nullable Copy copy, @Nullable Throwable why) {
    if (copy != null) {
      return copy.rule();
    }
    throw unknownHere(name, why);
  }

  private static LimiterUnavailableException unknownHere(String name, @Nullable Throwable cause) {
    return new LimiterUnavailableException(
        "rule '"
            + name
            + "' has not been seen by this client and the grid cannot be asked right now;"
            + " decisions under it follow the failure policy",
        cause);
  }
}
