package dev.sluice.core.grid.member;

import com.hazelcast.spi.exception.RetryableHazelcastException;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.StateValue;
import org.jspecify.annotations.Nullable;

/**
 * The grid's side of the decision: what {@link KeyDecision} needs that only the owning member has.
 * It resolves the policy from the member's local rules copy (no remote call), reads the member's
 * clock, finds the former policy of a state written under another shape, and says how the new state
 * is cleaned up: by the member's sweep (no TTL) for a rule's state once every member sweeps, else
 * by a TTL from how long the state counts ({@link StateTtl}). The processors store what it returns.
 */
public final class Decider {
  private Decider() {}

  /**
   * One key's answers, and the state to store (null: unchanged) with its TTL ({@link
   * StateTtl#NONE}: none, the sweep removes it).
   */
  record Result(KeyOutcome outcome, @Nullable StoredState written, long ttlMillis) {}

  /**
   * The field of the answer a region's member gives a plain decision of a global rule: the caller
   * took the rule for a local one (a client's copy, read before the rule became global), and sends
   * the check again as a {@code RegionDecideTask} ({@code GridBackend}).
   */
  public static final String GLOBAL_IN_REGION = "scope.global";

  static Result decide(
      @Nullable MemberContext context, KeyCommand command, @Nullable StateValue value) {
    StoredState stored = value == null ? null : value.toStored();
    int size = command.ops().length;
    if (context == null) {
      return new Result(
          KeyOutcome.invalid(
              size,
              "member",
              "member: this Hazelcast member was not configured with SluiceHazelcast.configure"),
          null,
          0);
    }
    CompiledPolicy policy;
    try {
      policy = context.rules().resolve(command.ref());
    } catch (UnknownRuleException e) {
      if (!context.rulesLoaded()) {
        // The member has joined but not loaded the rules yet: let Hazelcast retry shortly.
        throw new RetryableHazelcastException("Sluice rules are still loading on this member");
      }
      return new Result(KeyOutcome.unknownRule(size, e.rule()), null, 0);
    } catch (RuntimeException e) {
      // A policy this build cannot run (an algorithm it does not have): the request's error.
      return new Result(
          KeyOutcome.invalid(size, "algorithm", "algorithm: " + e.getMessage()), null, 0);
    }
    if (policy.policy().global() && context.region() != null) {
      // Counted at home: never here. The caller routes it to the key's regional budget.
      return new Result(
          KeyOutcome.invalid(
              size,
              GLOBAL_IN_REGION,
              GLOBAL_IN_REGION
                  + ": the rule is global, decided in a region from its budget; this caller"
                  + " needs a build that knows global rules"),
          null,
          0);
    }
    boolean inlinePolicy = command.ref() instanceof PolicyRef.Inline;
    if (command.ref() instanceof PolicyRef.Inline inline && inline.stateName() == null) {
      context.rememberInline(command.stateKey(), inline.policy());
    }
    long nowNanos = context.timeSource().nowNanos();
    KeyDecision.Result result =
        KeyDecision.decide(
            policy,
            stored,
            fingerprint -> context.formerPolicy(command.ref(), fingerprint),
            nowNanos,
            command.ops(),
            command.ref().storesPolicyWithState());
    if (result.written() == null) {
      return new Result(result.outcome(), null, 0);
    }
    context.countSettledAtEstimate(result.settledAtEstimate());
    // An inline policy's key names its policy only by a hash, so a member that never decided it
    // could not judge its state: those keep the TTL (docs/grid.md, "Cleanup"). A state under a
    // state name keeps its writer, by which the sweep judges it, as it judges a rule's.
    boolean sweepable = !inlinePolicy || command.ref().storesPolicyWithState();
    long ttlMillis =
        sweepable
            ? StateTtl.NONE
            : StateTtl.millis(result.untilFreshNanos(), context.minStateTtlMillis());
    return new Result(result.outcome(), result.written(), ttlMillis);
  }
}
