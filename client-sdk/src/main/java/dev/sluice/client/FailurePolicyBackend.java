package dev.sluice.client;

import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.backend.Futures;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The layer that never lets the grid hang the application ({@link
 * dev.sluice.core.pipeline.BackendStack}): every command waits at most the call timeout (its {@link
 * Deadline}, which the layers below honour), and when the grid cannot answer a decision (a timeout,
 * a lost connection, a grid not reached yet) the rule's {@link FailurePolicy} answers instead,
 * saying so ({@code FAIL_OPEN} or {@code FAIL_CLOSED}). A {@link CircuitBreaker} keeps a dead grid
 * from costing the timeout on every call: while it is open, decisions are made here at once, and
 * one probe per interval goes through.
 *
 * <p>A command of acquires is a decision: the policy answers each of them. Any other (a release, a
 * peek, a reservation, a commit, a reset) has no local answer: with the breaker open, or when the
 * grid does not answer in time, it fails with {@link LimiterUnavailableException}. A batch's read
 * of its rules is bounded too, and while the grid is away it reads nothing: its checks then meet
 * the open breaker and are answered by their policies.
 *
 * <p>Errors that belong to the request (an unknown rule, a cost above the capacity) are thrown as
 * they are: the grid answered, the request is wrong. A command that timed out may still be decided
 * by the grid later: the policy answered the caller, but the permits may have been consumed.
 * Timeouts are for outages, not for normal load.
 */
final class FailurePolicyBackend extends BackendDecorator {
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
  FailurePolicyBackend(
      Backend below,
      Duration callTimeout,
      CircuitBreaker breaker,
      FailurePolicy defaultPolicy,
      Map<String, FailurePolicy> rulePolicies,
      LocalDecisionMetrics metrics,
      Function<String, Optional<Rule>> knownRules) {
    super(below);
    this.callTimeoutNanos = callTimeout.toNanos();
    this.breaker = breaker;
    this.defaultPolicy = defaultPolicy;
    this.rulePolicies = Map.copyOf(rulePolicies);
    this.metrics = metrics;
    this.knownRules = knownRules;
  }

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    long ticket = breaker.tryPass();
    if (ticket == CircuitBreaker.REFUSED) {
      return unreachable(command);
    }
    KeyOutcome outcome;
    try {
      outcome = below.execute(command, deadline.within(callTimeoutNanos));
    } catch (RuntimeException e) {
      rethrowRequestError(e);
      breaker.onFailure(ticket);
      return failed(command, e);
    }
    breaker.onSuccess(ticket);
    return outcome;
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    long ticket = breaker.tryPass();
    if (ticket == CircuitBreaker.REFUSED) {
      return answeredHere(() -> unreachable(command));
    }
    return guarded(
        ticket, deadline, bounded -> below.executeAsync(command, bounded), e -> failed(command, e));
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    long ticket = breaker.tryPass();
    if (ticket == CircuitBreaker.REFUSED) {
      return answeredHere(() -> each(commands, this::unreachable));
    }
    return guarded(
        ticket,
        deadline,
        bounded -> below.executeAll(commands, bounded),
        e -> each(commands, command -> failed(command, e)));
  }

  /**
   * @throws LimiterUnavailableException (through the future) if the breaker is open, or the grid
   *     did not answer within the call timeout (the key may still be reset)
   */
  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    long ticket = breaker.tryPass();
    if (ticket == CircuitBreaker.REFUSED) {
      return CompletableFuture.failedFuture(unreachable("reset"));
    }
    return guarded(
        ticket,
        deadline,
        bounded -> below.reset(ref, stateKey, bounded),
        e -> {
          throw timedOut("reset", e);
        });
  }

  /**
   * Reads a batch's rules within the call timeout, and not at all while the breaker is open: a
   * failed or late read opens it, and the batch's checks are then answered by their policies (a
   * rule that does not exist is still the caller's error).
   */
  @Override
  public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
    if (breaker.isOpen()) {
      return CompletableFuture.completedFuture(null);
    }
    return guarded(
        breaker.ticket(), deadline, bounded -> below.fetchRules(names, bounded), e -> null);
  }

  /**
   * {@code call}'s answer within the call timeout, as a fresh future that does not touch the
   * layers' own; a failure that is the request's is thrown as it is, any other is answered by
   * {@code onFailure} and told to the breaker with the call's {@code ticket}.
   */
  private <T> CompletableFuture<T> guarded(
      long ticket,
      Deadline deadline,
      Function<Deadline, CompletableFuture<T>> call,
      Function<Throwable, T> onFailure) {
    Deadline bounded = deadline.within(callTimeoutNanos);
    CompletableFuture<T> flight;
    try {
      flight = call.apply(bounded);
    } catch (RuntimeException e) {
      flight = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> copy = new CompletableFuture<>();
    flight.whenComplete(
        (value, error) -> {
          if (error != null) {
            copy.completeExceptionally(error);
          } else {
            copy.complete(value);
          }
        });
    return copy.orTimeout(bounded.leftNanos(), TimeUnit.NANOSECONDS)
        .handle(
            (value, error) -> {
              if (error == null) {
                breaker.onSuccess(ticket);
                return value;
              }
              rethrowRequestError(error);
              breaker.onFailure(ticket);
              return onFailure.apply(error);
            });
  }

  /** Whether the breaker is open: the grid failed recently and calls are decided here. */
  boolean gridUnavailable() {
    return breaker.isOpen();
  }

  /** The failure policy of {@code ref}'s rule; inline policies take the client's default. */
  FailurePolicy failurePolicyOf(PolicyRef ref) {
    return ref instanceof PolicyRef.Named named
        ? rulePolicies.getOrDefault(named.rule(), defaultPolicy)
        : defaultPolicy;
  }

  /** The answer while the breaker is open: the policy's for a decision, none for the rest. */
  private KeyOutcome unreachable(KeyCommand command) {
    if (!decides(command)) {
      throw unreachable(operation(command));
    }
    return failureOutcome(command);
  }

  /** The answer when the grid failed a command: the policy's for a decision, none for the rest. */
  private KeyOutcome failed(KeyCommand command, Throwable error) {
    if (!decides(command)) {
      throw timedOut(operation(command), error);
    }
    return failureOutcome(command);
  }

  /** Whether every operation of {@code command} is an acquire: a decision the policy can answer. */
  private static boolean decides(KeyCommand command) {
    for (KeyOp op : command.ops()) {
      if (op.kind() != KeyOp.Kind.ACQUIRE) {
        return false;
      }
    }
    return true;
  }

  /** What a command without a local answer does, for messages. */
  private static String operation(KeyCommand command) {
    return switch (command.ops()[0].kind()) {
      case PEEK -> "peek";
      case RESERVE -> "reserve";
      case COMMIT -> "commit";
      default -> "release";
    };
  }

  private static LimiterUnavailableException unreachable(String operation) {
    return new LimiterUnavailableException(
        "the grid is unreachable; " + operation + " has no local answer");
  }

  private LimiterUnavailableException timedOut(String operation, Throwable error) {
    return new LimiterUnavailableException(
        "the grid did not answer "
            + operation
            + " within the call timeout of "
            + Durations.format(Duration.ofNanos(callTimeoutNanos))
            + "; "
            + operation
            + " has no local answer",
        Futures.unwrap(error));
  }

  /** {@code answer} made here, as a completed future (or a failed one, if it throws). */
  private static <T> CompletableFuture<T> answeredHere(Supplier<T> answer) {
    try {
      return CompletableFuture.completedFuture(answer.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static List<KeyOutcome> each(
      List<KeyCommand> commands, Function<KeyCommand, KeyOutcome> answer) {
    List<KeyOutcome> outcomes = new ArrayList<>(commands.size());
    for (KeyCommand command : commands) {
      outcomes.add(answer.apply(command));
    }
    return outcomes;
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

  /** Every operation of {@code command} answered by its rule's policy. */
  private KeyOutcome failureOutcome(KeyCommand command) {
    KeyOutcome outcome = new KeyOutcome(command.ops().length, 0);
    for (int i = 0; i < command.ops().length; i++) {
      outcome.setDecision(i, failureDecision(command.ref()));
    }
    return outcome;
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
  private Decision failureDecision(PolicyRef ref) {
    long limit = knownLimit(ref);
    if (failurePolicyOf(ref) == FailurePolicy.FAIL_OPEN) {
      metrics.failOpen.increment();
      return new Decision(true, limit, limit, 0, 0, 0, false, Decision.DecidedBy.FAIL_OPEN);
    }
    metrics.failClosed.increment();
    long retry = breaker.nanosUntilProbe();
    return new Decision(false, limit, 0, retry, retry, 0, false, Decision.DecidedBy.FAIL_CLOSED);
  }

  private long knownLimit(PolicyRef ref) {
    Optional<Policy> policy =
        ref instanceof PolicyRef.Inline inline
            ? Optional.of(inline.policy())
            : knownRules.apply(((PolicyRef.Named) ref).rule()).map(Rule::policy);
    return policy.map(Policy::capacity).orElse(0L);
  }
}
