package dev.sluice.core.grid;

import com.hazelcast.map.IMap;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.pipeline.RuleBook;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A client's copies of the rules its batches name, read from the rules map without blocking.
 *
 * <h2>What they are for</h2>
 *
 * A batch is validated whole before anything is sent (an unknown rule or a cost above a rule's
 * capacity fails it with nothing counted), and a client holds no copy of the rules the way a member
 * does. So before a batch leaves, the rules it names are read here, at most once a second per rule:
 * reading them for every batch cost a round trip per batch, which halved the client SDK's hot-key
 * throughput. A rule removed within that second is still caught by its keys' owners, which answer
 * "unknown rule".
 *
 * <h2>Why asynchronous</h2>
 *
 * The read used to be a synchronous {@code getAll} on the caller's thread: against a grid that
 * hangs it waited for Hazelcast's invocation timeout, seconds, before the batch's own call timeout
 * even started. {@link #fetch} never blocks: it answers a future, completed at once when every copy
 * is fresh, otherwise when the reads land (on the Hazelcast callback executor). A caller with a
 * deadline waits for that future within it; a batch waits only for a rule never copied here (an old
 * copy answers while it is read again). Concurrent batches share one read per rule. When a read of
 * a rule fails and an older copy exists, the older copy stands in: the batch then goes to the
 * owners, which decide with their own copies, or fails there as the grid does.
 */
final class FetchedRules {
  /** How long a copy is trusted before the next batch reads the rule again. */
  static final long FRESH_NANOS = 1_000_000_000L;

  /** Copies kept at most; beyond it all are dropped and read again as batches need them. */
  private static final int MAX_COPIES = 10_000;

  private record Copy(@Nullable RuleRecord record, long fetchedAtNanos) {}

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final Supplier<IMap<String, RuleRecord>> map;
  private final Executor callbacks;
  private final LongSupplier nanoClock;
  private final ConcurrentHashMap<String, Copy> copies = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, CompletableFuture<Void>> reads =
      new ConcurrentHashMap<>();
  private final RuleBook book;
  private final AtomicLong version = new AtomicLong();

  /**
   * @param map the rules map; throws while it cannot be had (a client offline)
   * @param callbacks where the reads' answers are handled
   */
  FetchedRules(Supplier<IMap<String, RuleRecord>> map, Executor callbacks, LongSupplier nanoClock) {
    this.map = map;
    this.callbacks = callbacks;
    this.nanoClock = nanoClock;
    this.book =
        new RuleBook(
            name -> {
              Copy copy = copies.get(name);
              return copy == null || copy.record() == null ? null : copy.record().policy();
            });
  }

  /**
   * Makes a copy of every rule in {@code names} known here; completes when {@link #resolve} can
   * answer for each, or fails as the read of a rule never copied before fails. A copy older than a
   * second is read again in the background and answers meanwhile: only a rule never copied here
   * makes a batch wait for a read.
   */
  CompletableFuture<Void> fetch(Set<String> names) {
    List<CompletableFuture<Void>> pending = null;
    long now = nanoClock.getAsLong();
    for (String name : names) {
      Copy copy = copies.get(name);
      if (copy != null) {
        if (now - copy.fetchedAtNanos() > FRESH_NANOS) {
          read(name); // in the background: the old copy stands in meanwhile
        }
        continue;
      }
      if (pending == null) {
        pending = new ArrayList<>(names.size());
      }
      pending.add(read(name));
    }
    if (pending == null) {
      return DONE;
    }
    return pending.size() == 1
        ? pending.get(0)
        : CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * The compiled policy of {@code ref} from the copies: inline policies always, a named rule if a
   * copy of it is here.
   *
   * @throws UnknownRuleException if the copy says there is no such rule; the copy is dropped, so
   *     that a rule created a moment later is seen at once
   */
  @Nullable CompiledPolicy resolve(PolicyRef ref) {
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

  /** A number that moves whenever a copy here changes ({@code Backend#rulesVersion}). */
  long version() {
    return version.get();
  }

  /** One read of {@code name}, shared by the batches that need it meanwhile. */
  private CompletableFuture<Void> read(String name) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> running = reads.putIfAbsent(name, mine);
    if (running != null) {
      return running;
    }
    long startedAt = nanoClock.getAsLong();
    CompletableFuture<RuleRecord> answer;
    try {
      answer = map.get().getAsync(name).toCompletableFuture();
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenCompleteAsync(
        (record, failure) -> {
          if (failure == null) {
            if (copies.size() > MAX_COPIES) {
              copies.clear();
              version.incrementAndGet();
            }
            RuleRecord live = record == null || record.isRemoved() ? null : record;
            Copy before = copies.put(name, new Copy(live, startedAt));
            if (before == null || !Objects.equals(before.record(), live)) {
              version.incrementAndGet();
            }
            reads.remove(name, mine);
            mine.complete(null);
            return;
          }
          reads.remove(name, mine);
          if (copies.containsKey(name)) {
            mine.complete(null); // the older copy stands in
          } else {
            mine.completeExceptionally(Futures.unwrap(failure));
          }
        },
        callbacks);
    return mine;
  }
}
