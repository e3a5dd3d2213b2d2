package dev.sluice.client;

import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.backend.AnsweringLayer;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The attack path, as a layer in front of the grid ({@link dev.sluice.core.pipeline.BackendStack}):
 * an acquire on a key the grid has just denied is answered "denied" here, with no network hop,
 * until its retry-after has run out ({@link DeniedUntilCache} has the rule and why it is never more
 * permissive than the grid). Everything else goes on, and the grid's denials are recorded on the
 * way back.
 *
 * <p>Only acquires that do not wait are answered here ({@link KeyCommand#mayAnswerHere}): a check
 * that may wait can be booked within its wait, and an all-or-nothing batch goes to the owners
 * whole. A release, a permit's release, a commit or a reset frees capacity, so it forgets the key's
 * denial first; a rule change forgets every denial under the rule ({@link #invalidateRule}).
 * Policies that count denied requests are never cached: answering them here would withhold the
 * penalty.
 */
final class DeniedCacheBackend extends AnsweringLayer {
  private final DeniedUntilCache cache;
  private final LocalDecisionMetrics metrics;
  private final LongSupplier nanoClock;
  private final Function<String, Optional<Rule>> knownRules;

  /**
   * @param knownRules a rule as the client last saw it, without waiting for the grid: whether it
   *     counts denials decides whether its denials may be cached (a rule not seen yet: not cached)
   */
  DeniedCacheBackend(
      Backend below,
      DeniedUntilCache cache,
      LocalDecisionMetrics metrics,
      LongSupplier nanoClock,
      Function<String, Optional<Rule>> knownRules) {
    super(below);
    this.cache = cache;
    this.metrics = metrics;
    this.nanoClock = nanoClock;
    this.knownRules = knownRules;
  }

  /** Before the grid's answer: the client's clock, from which a cached denial counts down. */
  @Override
  protected long sendingAtNanos() {
    return nanoClock.getAsLong();
  }

  /** Resets the key behind this layer and forgets any local denial of it. */
  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    cache.invalidate(stateKey);
    return below.reset(ref, stateKey, deadline);
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

  /** A cached denial, counted as a hit; a lookup that finds none is counted as a miss. */
  @Override
  protected @Nullable Decision answer(KeyCommand command, int index) {
    Decision denied = cache.lookup(command.stateKey(), command.ops()[index].permits());
    if (denied != null) {
      metrics.deniedCache.increment();
    } else {
      metrics.deniedCacheMisses.increment();
    }
    return denied;
  }

  /**
   * Records the grid's denials of {@code sent}'s acquires, sent at {@code sentAtNanos}. A command
   * that gave permits back (a release, a permit's, a commit) forgets the key's denial: it freed
   * capacity.
   */
  @Override
  protected void sent(KeyCommand sent, long sentAtNanos, KeyOutcome outcome) {
    KeyOp[] ops = sent.ops();
    KeyOp.Kind kind = ops[0].kind();
    if (kind == KeyOp.Kind.RELEASE
        || kind == KeyOp.Kind.RELEASE_PERMIT
        || kind == KeyOp.Kind.COMMIT) {
      cache.invalidate(sent.stateKey());
      return;
    }
    if (sent.ownerOnly()) {
      return;
    }
    for (int i = 0; i < ops.length; i++) {
      Decision decision = outcome.decisionOrNull(i);
      if (ops[i].kind() != KeyOp.Kind.ACQUIRE || decision == null) {
        continue;
      }
      if (ops[i].maxWaitNanos() > 0 && decision.allowed() && decision.delayNanos() > 0) {
        // A booking ahead pushed the key's next free instant further out: a denial cached before
        // it would answer a retry-after that is now too short.
        cache.invalidate(sent.stateKey());
      } else if (!decision.allowed()
          && decision.decidedBy() == Decision.DecidedBy.LIMITER
          && !countsDenied(sent.ref())) {
        cache.record(sent.stateKey(), ops[i].permits(), sentAtNanos, decision);
      }
    }
  }

  /**
   * Whether a denial under {@code ref} must not be cached: its policy counts denials, or limits
   * permits in flight (any holder's release frees them before the denial's retry-after, which only
   * tells when they would expire), or cannot be told here, or its key's state is one under a state
   * name (the next call on it may bring other parameters, which the denial says nothing about).
   */
  private boolean countsDenied(PolicyRef ref) {
    if (ref.storesPolicyWithState()) {
      return true;
    }
    if (ref instanceof PolicyRef.Inline inline) {
      return inline.policy().countDenied() || inline.policy().inFlight();
    }
    return knownRules
        .apply(((PolicyRef.Named) ref).rule())
        .map(rule -> rule.policy().countDenied() || rule.policy().inFlight())
        .orElse(true); // cannot tell yet: do not cache
  }
}
