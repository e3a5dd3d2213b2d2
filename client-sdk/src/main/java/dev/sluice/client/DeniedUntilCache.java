package dev.sluice.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.core.Decision;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Answers "denied" for keys the grid has just denied, without a network hop: the attack path.
 *
 * <h2>The rule</h2>
 *
 * When the grid denies {@code p} permits on a key with {@code retryAfter = d}, the client records
 * {@code (p, sentAt + d)}, where {@code sentAt} is the client's monotonic clock just
 * <em>before</em> the request went out. Until then, a request on the same key and rule (or the same
 * inline policy) for {@code q >= p} permits is answered locally:
 *
 * <pre>
 *   denied locally iff  q >= p  and  sentAt + d > nowMono        retryAfter = sentAt + d - nowMono
 * </pre>
 *
 * <h2>Why it is never more permissive than the grid</h2>
 *
 * It only ever says no, so it cannot admit what the grid would deny. The harder half is not denying
 * what the grid <em>would</em> allow:
 *
 * <ul>
 *   <li><b>Time.</b> {@code d} is, by the contract of {@link Decision#retryAfterNanos()}, the
 *       earliest delay after which the same request would be allowed if no other traffic arrived.
 *       The member decided at some instant after {@code sentAt}, so the true moment is at or after
 *       {@code sentAt + d}: using {@code sentAt} ends local denials early (by up to one round trip)
 *       rather than late. Only durations are used, on the client's own monotonic clock, so clock
 *       skew between client and members does not matter.
 *   <li><b>Other traffic</b> only consumes, and denied requests change no state (unless the policy
 *       counts denials, see below), so it can only keep the key denied longer.
 *   <li><b>Cost.</b> Every algorithm is monotone in permits: if {@code p} is denied, any {@code q
 *       >= p} is denied too. A <em>smaller</em> request may fit where {@code p} did not (3 left, 5
 *       asked), so it goes to the grid. If the grid denies the smaller {@code q} as well, the entry
 *       becomes {@code (q, sentAt' + d')}, which covers every {@code q' >= q} for its own retry.
 *   <li><b>Changes that free capacity.</b> A {@code reset} through this client removes the key's
 *       entry; a rule change removes every entry of that rule. A reset made elsewhere (another
 *       client, an admin call) is seen when the entry expires: at most {@code d}.
 * </ul>
 *
 * Policies that count denied requests (Figma-style penalty) are not cached: answering locally would
 * withhold the penalty from the grid, which would then admit sooner than it would have. Shadow
 * rules never deny, so they never reach the cache. A request for more than the key's limit is not
 * answered either: it is an error the limiter reports, not a denial.
 *
 * <h2>Bounds</h2>
 *
 * A Caffeine cache of at most {@code maximumSize} keys. An entry past its {@code until} is never
 * used; it is removed when next read or replaced, or evicted by size. Caffeine's per-entry expiry
 * would free memory sooner but costs a timer-wheel update and a second clock reading on every hit
 * of the attack path.
 */
final class DeniedUntilCache {

  /** A recorded denial: requests for at least {@code minPermits} are denied until {@code until}. */
  record Denial(long minPermits, long untilNanos, Decision decision) {}

  private final Cache<String, Denial> cache;
  private final LongSupplier nanoClock;

  DeniedUntilCache(long maximumSize, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    // Size-bounded only: each entry's own expiry is checked on read against one clock reading,
    // which keeps the attack path to one hash lookup (no timer wheel, no second clock read).
    // Entries past their time are removed when read and otherwise age out by size.
    this.cache = Caffeine.newBuilder().maximumSize(maximumSize).build();
  }

  /**
   * A local denial for {@code permits} on the state {@code key} ({@link
   * dev.sluice.core.Check#stateKey()}: a rule and subject, or an inline policy and subject), or
   * {@code null} when the grid must decide. The answer's {@code retryAfter} is the time left on the
   * client's clock.
   */
  @Nullable Decision lookup(String key, long permits) {
    Denial denial = cache.getIfPresent(key);
    if (denial == null || permits < denial.minPermits() || permits > denial.decision().limit()) {
      // Fewer permits may fit; more than the key can ever hold is an error the limiter reports.
      return null;
    }
    long left = denial.untilNanos() - nanoClock.getAsLong();
    if (left <= 0) {
      cache.asMap().remove(key, denial);
      return null;
    }
    Decision d = denial.decision();
    // The limit that denied, and a shadow ban, stay what the grid said.
    return new Decision(
        false,
        d.limit(),
        d.remaining(),
        left,
        Math.max(left, d.resetAfterNanos() - (d.retryAfterNanos() - left)),
        0,
        false,
        Decision.DecidedBy.DENIED_CACHE,
        0,
        d.bindingLimitIndex(),
        d.shadowBanned(),
        Math.max(left, d.bindingResetAfterNanos() - (d.retryAfterNanos() - left)),
        null);
  }

  /**
   * Records the grid's answer to a request for {@code permits} sent at {@code sentAtNanos}
   * (monotonic). Only denials with a positive retry-after are kept.
   */
  void record(String key, long permits, long sentAtNanos, Decision decision) {
    if (decision.allowed() || decision.retryAfterNanos() <= 0 || permits <= 0) {
      return;
    }
    long until = sentAtNanos + decision.retryAfterNanos();
    if (until - nanoClock.getAsLong() <= 0) {
      return;
    }
    cache.asMap().merge(key, new Denial(permits, until, decision), this::keepSmaller);
  }

  /**
   * Of two denials, the one for fewer permits covers more requests; it is kept. For equal permits
   * the later one, whose retry-after is more recent.
   */
  private Denial keepSmaller(Denial old, Denial fresh) {
    boolean oldExpired = old.untilNanos() - nanoClock.getAsLong() <= 0;
    return oldExpired || fresh.minPermits() <= old.minPermits() ? fresh : old;
  }

  void invalidate(String key) {
    cache.invalidate(key);
  }

  void invalidateRule(String rule) {
    String prefix = rule + '|';
    cache.asMap().keySet().removeIf(k -> k.startsWith(prefix));
  }

  void invalidateAll() {
    cache.invalidateAll();
  }

  long estimatedSize() {
    return cache.estimatedSize();
  }
}
