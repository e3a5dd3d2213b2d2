package dev.sluice.client;

import dev.sluice.core.AnswersLocally;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.pipeline.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} decorator that never hangs the application: every call waits at most the
 * call timeout for the limiter behind it, and when that limiter cannot answer a decision (a
 * timeout, a lost connection, a grid not reached yet) the rule's {@link FailurePolicy} answers
 * instead, saying so ({@code FAIL_OPEN} or {@code FAIL_CLOSED}). A {@link CircuitBreaker} keeps a
 * dead grid from costing the timeout on every call: while open, decisions are made here at once,
 * one probe per interval goes through.
 *
 * <p>Every path is bounded: single checks and each-alone batches wait through the limiter's timed
 * calls ({@link TimedLimiter}); asynchronous calls time out their future; an all-or-nothing batch
 * runs on a waiter thread the caller stops waiting for; peeks, releases and resets, which have no
 * local answer, throw {@link GridUnavailableException} when the grid does not answer in time or the
 * breaker is open.
 *
 * <p>Errors that belong to the request (an unknown rule, a cost above the capacity) are thrown as
 * they are: the grid answered, the request is wrong. A call that timed out may still be decided by
 * the grid later: the failure policy answered the caller, but the permits may have been consumed.
 * Timeouts are for outages, not for normal load.
 */
final class FailurePolicyLimiter implements RateLimiter, AnswersLocally {
  private final TimedLimiter delegate;
  private final long callTimeoutNanos;
  private final CircuitBreaker breaker;
  private final FailurePolicy defaultPolicy;
  private final Map<String, FailurePolicy> rulePolicies;
  private final LocalDecisionMetrics metrics;
  private final Function<String, Optional<Rule>> knownRules;

  /**
   * @param knownRules a rule as the client last saw it, without waiting for the grid (for the limit
   *     a failure answer reports)
   */
  FailurePolicyLimiter(
      TimedLimiter delegate,
      Duration callTimeout,
      CircuitBreaker breaker,
      FailurePolicy defaultPolicy,
      Map<String, FailurePolicy> rulePolicies,
      LocalDecisionMetrics metrics,
      Function<String, Optional<Rule>> knownRules) {
    this.delegate = delegate;
    this.callTimeoutNanos = callTimeout.toNanos();
    this.breaker = breaker;
    this.defaultPolicy = defaultPolicy;
    this.rulePolicies = Map.copyOf(rulePolicies);
    this.metrics = metrics;
    this.knownRules = knownRules;
  }

  @Override
  public Decision tryAcquire(Check check) {
    return decide(List.of(check)).get(0);
  }

  /**
   * A lease held here answers whatever the breaker says: its permits were admitted by the key's
   * owner before they were handed out here, so an answer from them is the grid's, not a failure
   * policy's.
   */
  @Override
  public @Nullable Decision tryAcquireLocally(Check check) {
    return delegate.tryAcquireLocally(check);
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    return decideAsync(List.of(check)).thenApply(decisions -> decisions.get(0));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return decide(Check.requireAll(checks));
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return decideAsync(Check.requireAll(checks));
  }

  /**
   * A synchronous round trip within the call timeout, through the limiter's timed calls. One check
   * goes through the single-check call, so that its errors name its own fields.
   */
  private List<Decision> decide(List<Check> checks) {
    if (!breaker.tryPass()) {
      return failureDecisions(checks);
    }
    List<Decision> decisions;
    try {
      decisions =
          checks.size() == 1
              ? List.of(delegate.tryAcquire(checks.get(0), callTimeoutNanos))
              : delegate.tryAcquireAll(checks, callTimeoutNanos);
    } catch (RuntimeException | TimeoutException e) {
      return onError(checks, e);
    }
    breaker.onSuccess();
    return decisions;
  }

  private CompletionStage<List<Decision>> decideAsync(List<Check> checks) {
    if (!breaker.tryPass()) {
      return CompletableFuture.completedFuture(failureDecisions(checks));
    }
    CompletableFuture<List<Decision>> flight;
    try {
      flight = send(checks);
    } catch (RuntimeException e) {
      flight = CompletableFuture.failedFuture(e);
    }
    return flight
        .orTimeout(callTimeoutNanos, TimeUnit.NANOSECONDS)
        .handle(
            (decisions, error) -> {
              if (error != null) {
                return onError(checks, error);
              }
              breaker.onSuccess();
              return decisions;
            });
  }

  /**
   * The limiter's answer as a fresh future this decorator may time out without touching the
   * limiter's own: one check through the single-check API (its errors name the check's own fields),
   * several through the batch API.
   */
  private CompletableFuture<List<Decision>> send(List<Check> checks) {
    CompletionStage<List<Decision>> stage =
        checks.size() == 1
            ? delegate.tryAcquireAsync(checks.get(0)).thenApply(List::of)
            : delegate.tryAcquireAllAsync(checks);
    return fresh(stage);
  }

  /**
   * An all-or-nothing batch within the call timeout; while the grid is away, every check is
   * answered by its failure policy, and the batch is admitted only if all of them fail open. The
   * batch runs on a waiter thread: if the caller stops waiting, the batch still completes there,
   * giving back what it took when a check is denied.
   */
  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    if (mode == BatchMode.EACH) {
      return BatchOutcome.each(tryAcquireAll(checks));
    }
    // A request error is the caller's, whatever the grid's health: refuse it before timing out.
    Check.requireNoWait(Check.requireAll(checks));
    if (!breaker.tryPass()) {
      return failureOutcome(checks);
    }
    try {
      BatchOutcome outcome =
          CompletableFuture.supplyAsync(
                  () -> delegate.tryAcquireAll(checks, mode), TimedLimiter.Waiting.WAITERS)
              .get(callTimeoutNanos, TimeUnit.NANOSECONDS);
      breaker.onSuccess();
      return outcome;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      breaker.onFailure();
      return failureOutcome(checks);
    } catch (ExecutionException | TimeoutException e) {
      rethrowRequestError(e);
      breaker.onFailure();
      return failureOutcome(checks);
    }
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout: nothing to give back to
   */
  @Override
  public Decision release(Check check) {
    return withoutLocalAnswer("release", () -> delegate.release(check, callTimeoutNanos));
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout: the permit is the grid's (unreleased, it frees itself at its permitTtl)
   */
  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    return withoutLocalAnswer(
        "release", () -> delegate.releasePermit(ref, key, permitId, callTimeoutNanos));
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout: a reservation lives in the key owner's ledger, so the failure policy cannot
   *     answer it (if the owner took the estimate after all, it is settled at its ttl)
   */
  @Override
  public Reservation reserve(Check check, Duration ttl) {
    return withoutLocalAnswer("reserve", () -> delegate.reserve(check, ttl, callTimeoutNanos));
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout: the reservation stays open (or was committed), and an open one is settled at
   *     its estimate when its ttl passes
   */
  @Override
  public Decision commit(String reservationId, long cost) {
    return withoutLocalAnswer(
        "commit", () -> delegate.commit(reservationId, cost, callTimeoutNanos));
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout: a peek has no local answer
   */
  @Override
  public Decision peek(PolicyRef ref, String key) {
    return withoutLocalAnswer("peek", () -> delegate.peek(ref, key, callTimeoutNanos));
  }

  /**
   * @throws GridUnavailableException if the breaker is open, or the grid did not answer within the
   *     call timeout (the key may still be reset)
   */
  @Override
  public void reset(PolicyRef ref, String key) {
    withoutLocalAnswer(
        "reset",
        () -> {
          delegate.reset(ref, key, callTimeoutNanos);
          return Boolean.TRUE;
        });
  }

  @Override
  public RuleStore rules() {
    return delegate.rules();
  }

  /** A call with no local answer: the grid's within the timeout, or GridUnavailableException. */
  private <T> T withoutLocalAnswer(String operation, TimedCall<T> call) {
    // Like a decision, it may be the breaker's probe: a peek can find the grid back.
    if (!breaker.tryPass()) {
      throw new GridUnavailableException(
          "the grid is unreachable; " + operation + " has no local answer");
    }
    try {
      T answer = call.call();
      breaker.onSuccess();
      return answer;
    } catch (RuntimeException | TimeoutException e) {
      rethrowRequestError(e);
      breaker.onFailure();
      throw new GridUnavailableException(
          "the grid did not answer "
              + operation
              + " within the call timeout of "
              + Durations.format(Duration.ofNanos(callTimeoutNanos))
              + "; "
              + operation
              + " has no local answer",
          e);
    }
  }

  /** A call to the grid that may time out. */
  @FunctionalInterface
  private interface TimedCall<T> {
    T call() throws TimeoutException;
  }

  /** Whether the breaker is open: the grid failed recently and calls are decided here. */
  boolean gridUnavailable() {
    return breaker.isOpen();
  }

  /** The failure policy of {@code check}'s rule; inline policies take the client's default. */
  FailurePolicy failurePolicyOf(Check check) {
    return check.ref() instanceof PolicyRef.Named named
        ? rulePolicies.getOrDefault(named.rule(), defaultPolicy)
        : defaultPolicy;
  }

  /** The limiter's answer as a fresh future this decorator may time out without touching its. */
  private static <T> CompletableFuture<T> fresh(CompletionStage<T> stage) {
    CompletableFuture<T> copy = new CompletableFuture<>();
    stage.whenComplete(
        (value, error) -> {
          if (error != null) {
            copy.completeExceptionally(error);
          } else {
            copy.complete(value);
          }
        });
    return copy;
  }

  /** Rethrows what belongs to the request; answers grid failures by the failure policy. */
  private List<Decision> onError(List<Check> checks, Throwable error) {
    rethrowRequestError(error);
    return onFailure(checks);
  }

  private static void rethrowRequestError(Throwable error) {
    Throwable cause = Futures.unwrap(error);
    if (cause instanceof IllegalArgumentException e) {
      throw e; // InvalidPolicyException among them: the request is wrong, not the grid
    }
    if (cause instanceof UnknownRuleException e) {
      throw e;
    }
    if (cause instanceof ReservationException e) {
      throw e; // the owner answered: the reservation is not open
    }
  }

  private List<Decision> onFailure(List<Check> checks) {
    breaker.onFailure();
    return failureDecisions(checks);
  }

  private List<Decision> failureDecisions(List<Check> checks) {
    List<Decision> decisions = new ArrayList<>(checks.size());
    for (Check check : checks) {
      decisions.add(failureDecision(check));
    }
    return decisions;
  }

  private BatchOutcome failureOutcome(List<Check> checks) {
    List<Decision> decisions = failureDecisions(checks);
    int deniedBy = -1;
    for (int i = 0; i < decisions.size() && deniedBy < 0; i++) {
      if (!decisions.get(i).allowed()) {
        deniedBy = i;
      }
    }
    return new BatchOutcome(decisions, deniedBy < 0, deniedBy, Set.of());
  }

  /**
   * The answer when the grid cannot give one. Its {@code limit} is what the grid would report (the
   * policy's capacity) when the policy is known: an inline policy's, or a named rule's from the
   * rules cache (a rule this client has seen). A rule never seen here has no known limit: {@code
   * limit = remaining = 0}, which is how the answer says the rule itself could not be checked, and
   * middleware leaves the RateLimit headers out. Fail-open reports the whole limit as remaining
   * (the grid's count is unknown, and this client admits while it is away); fail-closed reports
   * none left.
   */
  private Decision failureDecision(Check check) {
    long limit = knownLimit(check);
    if (failurePolicyOf(check) == FailurePolicy.FAIL_OPEN) {
      metrics.failOpen.increment();
      return new Decision(true, limit, limit, 0, 0, 0, false, Decision.DecidedBy.FAIL_OPEN);
    }
    metrics.failClosed.increment();
    long retry = breaker.nanosUntilProbe();
    return new Decision(false, limit, 0, retry, retry, 0, false, Decision.DecidedBy.FAIL_CLOSED);
  }

  private long knownLimit(Check check) {
    Optional<dev.sluice.core.Policy> policy =
        check.ref() instanceof PolicyRef.Inline inline
            ? Optional.of(inline.policy())
            : knownRules.apply(((PolicyRef.Named) check.ref()).rule()).map(Rule::policy);
    return policy.map(dev.sluice.core.Policy::capacity).orElse(0L);
  }
}
