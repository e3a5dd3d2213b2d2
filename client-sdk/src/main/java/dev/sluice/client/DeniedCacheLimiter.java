package dev.sluice.client;

import dev.sluice.core.AnswersLocally;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationId;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The attack path, as a {@link RateLimiter} decorator: a key the limiter behind it has just denied
 * is answered "denied" here, with no network hop, until its retry-after has run out ({@link
 * DeniedUntilCache} has the rule and why it is never more permissive than the limiter). Everything
 * else passes through, and the limiter's denials are recorded on the way back.
 *
 * <p>A release or a reset through this client frees capacity, so it forgets the key's denial; a
 * rule change forgets every denial under the rule ({@link #invalidateRule}). Policies that count
 * denied requests are never cached: answering them locally would withhold the penalty.
 * All-or-nothing batches pass through whole.
 */
final class DeniedCacheLimiter implements RateLimiter, AnswersLocally {
  private final RateLimiter delegate;
  private final DeniedUntilCache cache;
  private final LocalDecisionMetrics metrics;
  private final LongSupplier nanoClock;
  private final Function<String, Optional<Rule>> knownRules;

  /**
   * @param knownRules a rule as the client last saw it, without waiting for the grid: whether it
   *     counts denials decides whether its denials may be cached (a rule not seen yet: not cached)
   */
  DeniedCacheLimiter(
      RateLimiter delegate,
      DeniedUntilCache cache,
      LocalDecisionMetrics metrics,
      LongSupplier nanoClock,
      Function<String, Optional<Rule>> knownRules) {
    this.delegate = delegate;
    this.cache = cache;
    this.metrics = metrics;
    this.nanoClock = nanoClock;
    this.knownRules = knownRules;
  }

  /**
   * The limiter behind's own local answer (a live lease), else a cached denial. The lease comes
   * first: its permits were admitted by the key's owner, so an answer from them is exact whatever
   * an older denial says, and a hot key answered from leases skips the cache lookup. A miss here is
   * not counted: the call that follows ({@link #tryAcquire}) looks again and counts it, and a lease
   * answer is neither a hit nor a miss of the denied cache.
   */
  @Override
  public @Nullable Decision tryAcquireLocally(Check check) {
    Decision leased =
        delegate instanceof AnswersLocally behind ? behind.tryAcquireLocally(check) : null;
    return leased != null ? leased : cached(check);
  }

  @Override
  public Decision tryAcquire(Check check) {
    Decision local = lookup(check);
    if (local != null) {
      return local;
    }
    long sentAt = nanoClock.getAsLong();
    Decision decision = delegate.tryAcquire(check);
    record(check, sentAt, decision);
    return decision;
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    Decision local = lookup(check);
    if (local != null) {
      return CompletableFuture.completedFuture(local);
    }
    long sentAt = nanoClock.getAsLong();
    return delegate
        .tryAcquireAsync(check)
        .thenApply(
            decision -> {
              record(check, sentAt, decision);
              return decision;
            });
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    Check.requireAll(checks);
    Decision[] answers = new Decision[checks.size()];
    List<Check> remote = localAnswers(checks, answers);
    if (!remote.isEmpty()) {
      long sentAt = nanoClock.getAsLong();
      merge(answers, remote, sentAt, delegate.tryAcquireAll(remote));
    }
    return List.of(answers);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    Check.requireAll(checks);
    Decision[] answers = new Decision[checks.size()];
    List<Check> remote = localAnswers(checks, answers);
    if (remote.isEmpty()) {
      return CompletableFuture.completedFuture(List.of(answers));
    }
    long sentAt = nanoClock.getAsLong();
    return delegate
        .tryAcquireAllAsync(remote)
        .thenApply(
            decisions -> {
              merge(answers, remote, sentAt, decisions);
              return List.of(answers);
            });
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    return mode == BatchMode.EACH
        ? BatchOutcome.each(tryAcquireAll(checks))
        : delegate.tryAcquireAll(checks, mode);
  }

  @Override
  public Decision release(Check check) {
    cache.invalidate(check.stateKey());
    return delegate.release(check);
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    cache.invalidate(ref.stateKey(key));
    return delegate.releasePermit(ref, key, permitId);
  }

  /** A reservation is decided by the key's owner, whose ledger holds it. */
  @Override
  public Reservation reserve(Check check, Duration ttl) {
    return delegate.reserve(check, ttl);
  }

  /** A commit may give permits back: forget any local denial of the key. */
  @Override
  public Decision commit(String reservationId, long cost) {
    ReservationId id = ReservationId.parse(reservationId);
    cache.invalidate(id.ref().stateKey(id.subject()));
    return delegate.commit(reservationId, cost);
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return delegate.peek(ref, key);
  }

  /** Resets the key behind this client and forgets any local denial of it. */
  @Override
  public void reset(PolicyRef ref, String key) {
    StateKey.checkSubject(key);
    cache.invalidate(ref.stateKey(key));
    delegate.reset(ref, key);
  }

  @Override
  public RuleStore rules() {
    return delegate.rules();
  }

  /**
   * Forgets every denial under {@code rule}: a new limit or window can admit what the old denied.
   */
  void invalidateRule(String rule) {
    cache.invalidateRule(rule);
  }

  /** Forgets every denial (changes may have been missed). */
  void invalidateAll() {
    cache.invalidateAll();
  }

  /** A cached denial of {@code check}, counted as a hit; a miss is counted too. */
  private @Nullable Decision lookup(Check check) {
    Decision denied = cached(check);
    if (denied == null && !check.waits()) {
      metrics.deniedCacheMisses.increment();
    }
    return denied;
  }

  /** A cached denial of {@code check}, counted as a hit, or null. */
  private @Nullable Decision cached(Check check) {
    if (check.waits()) {
      return null; // the grid may book it within its wait: a cached denial says nothing of that
    }
    Decision denied = cache.lookup(check.stateKey(), check.permits());
    if (denied != null) {
      metrics.deniedCache.increment();
    }
    return denied;
  }

  private void record(Check check, long sentAtNanos, Decision decision) {
    if (check.waits() && decision.allowed() && decision.delayNanos() > 0) {
      // A booking ahead pushed the key's next free instant further out: a denial cached before
      // it would answer a retry-after that is now too short.
      cache.invalidate(check.stateKey());
      return;
    }
    if (!decision.allowed()
        && decision.decidedBy() == Decision.DecidedBy.LIMITER
        && !countsDenied(check)) {
      cache.record(check.stateKey(), check.permits(), sentAtNanos, decision);
    }
  }

  /**
   * Fills {@code answers} with what is answered here and returns the rest, in order. Leaving a
   * locally denied check out of a batch changes nothing for the checks after it: a denial changes
   * no state (and policies that count denials are never cached).
   */
  private List<Check> localAnswers(List<Check> checks, Decision[] answers) {
    List<Check> remote = new ArrayList<>(checks.size());
    for (int i = 0; i < checks.size(); i++) {
      Decision local = lookup(checks.get(i));
      if (local != null) {
        answers[i] = local;
      } else {
        remote.add(checks.get(i));
      }
    }
    return remote;
  }

  private void merge(Decision[] answers, List<Check> remote, long sentAt, List<Decision> decided) {
    int next = 0;
    for (int i = 0; i < answers.length; i++) {
      if (answers[i] == null) {
        record(remote.get(next), sentAt, decided.get(next));
        answers[i] = decided.get(next++);
      }
    }
  }

  /**
   * Whether a denial of {@code check} must not be cached: its policy counts denials, or limits
   * permits in flight (any holder's release frees them before the denial's retry-after, which only
   * tells when they would expire), or cannot be told here, or its key's state is one under a state
   * name (the next call on it may bring other parameters, which the denial says nothing about).
   */
  private boolean countsDenied(Check check) {
    if (check.ref().storesPolicyWithState()) {
      return true;
    }
    if (check.ref() instanceof PolicyRef.Inline inline) {
      return inline.policy().countDenied() || inline.policy().inFlight();
    }
    return knownRules
        .apply(((PolicyRef.Named) check.ref()).rule())
        .map(rule -> rule.policy().countDenied() || rule.policy().inFlight())
        .orElse(true); // cannot tell yet: do not cache
  }
}
