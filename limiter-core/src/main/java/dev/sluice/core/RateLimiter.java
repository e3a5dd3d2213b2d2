package dev.sluice.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Decides whether requests may proceed. The one interface every runtime implements: {@code
 * LocalRateLimiter} in one JVM, the grid through an embedded member or a Hazelcast client, the
 * client SDK's decorators over those, and the REST API over any of them. One contract suite checks
 * them all.
 *
 * <p>A request is a {@link Check}: a named rule or an inline policy ({@link PolicyRef}), a key (the
 * subject: any UTF-8 up to 512 bytes) and a cost in permits (0 reports the state without
 * consuming). Asking for more than the policy can ever hold is an {@link InvalidPolicyException},
 * not a denial forever; a rule nobody defined is an {@link UnknownRuleException}. Either way
 * nothing is counted.
 */
public interface RateLimiter {

  /** Decides one check. */
  Decision tryAcquire(Check check);

  CompletionStage<Decision> tryAcquireAsync(Check check);

  /**
   * Decides every check; the answers are in the order of the checks. Checks on the same key are
   * decided in order, each seeing the ones before it. If any check is invalid (an unknown rule, a
   * cost above its capacity) the batch fails and nothing is counted.
   */
  List<Decision> tryAcquireAll(List<Check> checks);

  CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks);

  /**
   * {@link #tryAcquireAllAsync(List)}, its answer completed by a task on {@code answers} (or
   * complete already when returned), so that the caller's own dependent steps run there. A caller
   * that moves every answer to its own thread anyway (an event loop) saves that move: the grid's
   * batches complete there directly, one thread hand-off fewer than through Hazelcast's callback
   * pool. This default moves the answer itself.
   *
   * @param answers runs its tasks on threads of its own, never on the thread that hands them over
   */
  default CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks, Executor answers) {
    return tryAcquireAllAsync(checks).whenCompleteAsync((decisions, failure) -> {}, answers);
  }

  /**
   * Decides a batch in {@code mode}: {@link BatchMode#EACH} as {@link #tryAcquireAll(List)}; {@link
   * BatchMode#ALL} admits every check or none, giving back what the others took when one is denied.
   */
  BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode);

  /**
   * Gives back {@code check.permits()} permits admitted earlier on the check's key, if {@link
   * Check#proof()} shows they are the caller's to give back, and answers the key's state after
   * that: a {@link Receipt} (see {@link #release(Receipt)}); a bare count on a rule that takes one
   * from anyone ({@code release: open}); or a bare count {@link ReleaseProof.Bare#WITHOUT_PROOF}
   * ({@link #releaseWithoutProof}). A bare count never frees more than the key can hold nor more
   * than its current window admitted (see {@link dev.sluice.core.algorithm.LimiterAlgorithm#release
   * (long[], long, long)}): release what you acquired and did not use, soon after.
   *
   * @throws ReleaseException if the proof does not hold (none on a rule that needs it, a receipt
   *     not issued here, given back already, or of a window that has ended); nothing is freed
   */
  Decision release(Check check);

  /**
   * Gives back what the admission that answered {@code receipt} took ({@link Decision#receipt()}),
   * and answers the key's state after that: the exact undo of that admission, once, within the
   * window it was admitted in. A receipt is sealed with the runtime's secret (one grid's members
   * and clients share it), so it may be given back through any node or client of the same grid, and
   * parsed from the text it travelled as ({@link Receipt#parse}).
   *
   * @throws ReleaseException naming why nothing was freed: {@link
   *     ReleaseException.Reason#NOT_ISSUED_HERE} (altered, forged, another runtime's), {@link
   *     ReleaseException.Reason#SPENT} (given back already), {@link
   *     ReleaseException.Reason#EXPIRED} (its window has ended)
   */
  default Decision release(Receipt receipt) {
    return release(receipt.release());
  }

  /**
   * Gives back {@code check.permits()} on the caller's own word, with no proof that they were
   * admitted: an explicit opt-in for trusted code (a job that knows what it took). Anything that
   * lets untrusted callers reach this (an endpoint, a message handler) lets them refund their own
   * usage after every request and never be limited; hand them receipts instead. REST allows it only
   * with the admin token.
   */
  default Decision releaseWithoutProof(Check check) {
    return release(check.withProof(ReleaseProof.Bare.WITHOUT_PROOF));
  }

  /**
   * Gives back the permit {@code permitId} that an admission under a concurrency rule holds ({@link
   * Decision#permitId()}), and answers the key's state after that. Releasing an id twice, or after
   * the permit expired, frees nothing.
   *
   * @throws InvalidPolicyException naming {@code permitId} if the rule is not a concurrency rule
   */
  Decision releasePermit(PolicyRef ref, String key, long permitId);

  /**
   * Takes {@code check.permits()} as an estimate of a cost known only later (the tokens of an LLM
   * response), admitted as a check for that cost would be, and holds it open for {@code ttl}.
   * Settle it with {@link #commit}; one never committed is settled at its estimate when its ttl
   * passes. Denied, nothing is held and {@link Reservation#id()} is null. The check may not wait.
   *
   * @throws InvalidPolicyException for a cost below 1, a {@code maxWait}, a ttl outside 1 ms to 1
   *     day, or a concurrency rule (it holds permits by id: acquire and release those instead)
   */
  Reservation reserve(Check check, Duration ttl);

  /**
   * Settles reservation {@code reservationId} at its actual {@code cost}: what the estimate was
   * over is given back, what it was under is charged now whether or not the key has room, up to one
   * capacity of it (a token bucket or GCRA goes into debt, at most one window beyond empty, so the
   * next requests wait; a window algorithm counts past its limit until the window ends). Answers
   * the key's state after that as a peek sees it: not allowed, with a {@code retryAfter}, when the
   * commit left the key in debt. A reservation is committed once.
   *
   * @throws InvalidPolicyException naming {@code reservationId} for an id no reservation was given,
   *     or {@code cost} for a negative cost or one above 10^9; nothing changes
   * @throws ReservationException if it is not open: committed already, expired (it was settled at
   *     its estimate), or unknown to the key (reset since); nothing changes
   */
  Decision commit(String reservationId, long cost);

  /** The key's state as a request for 0 permits would see it, consuming nothing. */
  Decision peek(PolicyRef ref, String key);

  /**
   * Forgets the key's state: it is back to full capacity.
   *
   * @throws UnknownRuleException if {@code ref} names a rule there is none of
   */
  void reset(PolicyRef ref, String key);

  /** The named rules this limiter decides with. */
  RuleStore rules();

  // ---------------------------------------------------------------- shorthands

  /** Takes one permit from {@code key} under the named rule. */
  default Decision tryAcquire(String rule, String key) {
    return tryAcquire(Check.of(rule, key, 1));
  }

  /** Takes {@code permits} from {@code key} under the named rule. */
  default Decision tryAcquire(String rule, String key, long permits) {
    return tryAcquire(Check.of(rule, key, permits));
  }

  /** Takes {@code permits} from {@code key} under an inline policy (redis-cell style). */
  default Decision tryAcquire(Policy policy, String key, long permits) {
    return tryAcquire(Check.inline(policy, key, permits));
  }

  default CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return tryAcquireAsync(Check.of(rule, key, permits));
  }

  default CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    return tryAcquireAsync(Check.inline(policy, key, permits));
  }

  /**
   * Gives back {@code permits} on {@code key} under the named rule, a bare count: only a rule with
   * {@code release: open} takes it; see {@link #release(Check)}.
   */
  default Decision release(String rule, String key, long permits) {
    return release(Check.of(rule, key, permits));
  }

  /** {@link #releasePermit(PolicyRef, String, long)} under the named rule. */
  default Decision releasePermit(String rule, String key, long permitId) {
    return releasePermit(PolicyRef.rule(rule), key, permitId);
  }

  /**
   * Takes {@code permits}, waiting up to {@code maxWait} for them: the owner books them for the
   * earliest instant they fit (one call), and this thread sleeps until then. Returns the decision
   * once the caller may proceed; a denial (they could not be had within {@code maxWait}) returns at
   * once, with nothing booked.
   *
   * @throws InterruptedException if interrupted while waiting; the permits stay booked
   */
  default Decision acquire(String rule, String key, long permits, Duration maxWait)
      throws InterruptedException {
    return acquire(Check.of(rule, key, permits).withMaxWait(maxWait));
  }

  /**
   * {@link #tryAcquire(Check)}, then sleeps the decision's delay (a booking's wait, a leaky
   * bucket's shaping delay) before returning it.
   *
   * @throws InterruptedException if interrupted while waiting; the permits stay booked
   */
  default Decision acquire(Check check) throws InterruptedException {
    Decision decision = tryAcquire(check);
    if (decision.allowed() && decision.delayNanos() > 0) {
      TimeUnit.NANOSECONDS.sleep(decision.delayNanos());
    }
    return decision;
  }

  /**
   * {@link #acquire(Check)} without a thread waiting: the future completes with the decision once
   * its delay has passed (on a shared timer, no thread parked per wait), or at once for a denial.
   */
  default CompletionStage<Decision> acquireAsync(Check check) {
    return tryAcquireAsync(check)
        .thenCompose(
            decision -> {
              if (!decision.allowed() || decision.delayNanos() <= 0) {
                return CompletableFuture.completedFuture(decision);
              }
              return CompletableFuture.supplyAsync(
                  () -> decision,
                  CompletableFuture.delayedExecutor(
                      decision.delayNanos(), TimeUnit.NANOSECONDS, Runnable::run));
            });
  }

  /** {@link #acquireAsync(Check)} for {@code permits} under the named rule. */
  default CompletionStage<Decision> acquireAsync(
      String rule, String key, long permits, Duration maxWait) {
    return acquireAsync(Check.of(rule, key, permits).withMaxWait(maxWait));
  }

  /** {@link #reserve(Check, Duration)} of {@code estimate} permits under the named rule. */
  default Reservation reserve(String rule, String key, long estimate, Duration ttl) {
    return reserve(Check.of(rule, key, estimate), ttl);
  }

  /** {@link #peek(PolicyRef, String)} under the named rule. */
  default Decision peek(String rule, String key) {
    return peek(PolicyRef.rule(rule), key);
  }

  /** {@link #reset(PolicyRef, String)} under the named rule. */
  default void reset(String rule, String key) {
    reset(PolicyRef.rule(rule), key);
  }
}
