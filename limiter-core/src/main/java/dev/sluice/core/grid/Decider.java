package dev.sluice.core.grid;

import com.hazelcast.spi.exception.RetryableHazelcastException;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The owner-side step shared by the processors: resolve the policy, read the member clock, fit the
 * stored state, apply the algorithm to each request in order. Pure apart from the clock read; the
 * processors do the storing.
 */
final class Decider {
  private Decider() {}

  /** The result of deciding one key: the answers and the state to store (null: unchanged). */
  record Result(KeyOutcome outcome, @Nullable GridState written, long ttlMillis) {}

  static Result decide(
      @Nullable MemberContext context,
      @Nullable String rule,
      @Nullable Policy inline,
      @Nullable GridState stored,
      long[] permits) {
    if (context == null) {
      return new Result(
          KeyOutcome.invalid(
              permits.length,
              "member",
              "member: this Hazelcast member was not configured with SluiceHazelcast.configure"),
          null,
          0);
    }
    Policy policy;
    LimiterAlgorithm algorithm;
    int fingerprint;
    if (rule != null) {
      MemberContext.ResolvedRule resolved = context.rule(rule);
      if (resolved == null) {
        if (!context.rulesLoaded()) {
          // The member has joined but not loaded the rules yet: let Hazelcast retry shortly.
          throw new RetryableHazelcastException("Sluice rules are still loading on this member");
        }
        return new Result(KeyOutcome.unknownRule(permits.length, rule), null, 0);
      }
      if (resolved.algorithm() == null) {
        return new Result(
            KeyOutcome.invalid(permits.length, "algorithm", "algorithm: " + resolved.error()),
            null,
            0);
      }
      policy = resolved.policy();
      algorithm = resolved.algorithm();
      fingerprint = resolved.fingerprint();
    } else {
      policy = inline;
      try {
        algorithm = LimiterAlgorithm.of(policy);
      } catch (RuntimeException e) {
        return new Result(
            KeyOutcome.invalid(permits.length, "algorithm", "algorithm: " + e.getMessage()),
            null,
            0);
      }
      fingerprint = GridState.fingerprint(policy);
      context.rememberInline(fingerprint, policy);
    }

    long nowNanos = context.timeSource().nowNanos();
    long[] before = stored != null && stored.fingerprint() == fingerprint ? stored.state() : null;
    // Copy: in OBJECT format the stored array is the map's own; it must change only via setValue.
    long[] state = before != null ? algorithm.fit(before.clone()) : algorithm.newState();
    KeyOutcome outcome = new KeyOutcome(permits.length);
    for (int i = 0; i < permits.length; i++) {
      try {
        Decision decision = algorithm.apply(state, nowNanos, permits[i]);
        outcome.setDecision(i, policy.shadow() ? decision.asShadow() : decision);
      } catch (InvalidPolicyException e) {
        outcome.setError(i, KeyOutcome.INVALID, e.field(), e.getMessage());
      }
    }
    boolean changed =
        before != null
            ? !Arrays.equals(before, state)
            : !Arrays.equals(algorithm.newState(), state);
    if (!changed) {
      return new Result(outcome, null, 0);
    }
    long ttlMillis =
        StateTtl.millis(algorithm.untilFreshNanos(state, nowNanos), context.minStateTtlMillis());
    return new Result(outcome, new GridState(fingerprint, state), ttlMillis);
  }
}
