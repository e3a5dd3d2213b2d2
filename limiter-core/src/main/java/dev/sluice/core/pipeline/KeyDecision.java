package dev.sluice.core.pipeline;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The decision itself, once for every runtime: a key's stored state, the owner's {@code now}, and
 * the operations to decide, in; the answers and the state to store, out. Pure: the local limiter
 * calls it under the key's monitor, the grid's entry processor on the partition that owns the key.
 *
 * <h2>Steps</h2>
 *
 * <ol>
 *   <li>Take the stored state if its fingerprint is the policy's and {@code fit} it (a changed
 *       limit keeps the counters); if it was written under another shape (a rule changed its
 *       window, algorithm, buckets or list of limits), carry it over: the former policy's {@link
 *       LimiterAlgorithm#admissions} become this policy's state ({@link
 *       LimiterAlgorithm#fromAdmissions}), never more permissive than what was admitted. A state
 *       whose former policy is no longer known starts afresh, and the result says so.
 *   <li>Decide each operation in order on that state: acquire, release (plain, or the exact undo of
 *       an admission at a given instant), peek. A shadow policy reports would-be denials as
 *       allowances flagged {@code shadowDenied}. A cost above the capacity is that operation's
 *       error and counts nothing.
 *   <li>Hand back the state to store when it changed, with how long it counts ({@link
 *       LimiterAlgorithm#untilFreshNanos}); a denial or a peek stores nothing.
 * </ol>
 */
public final class KeyDecision {
  private KeyDecision() {}

  /**
   * What deciding one key produced.
   *
   * @param outcome one answer per operation
   * @param written the state to store, or null when nothing is to be written
   * @param untilFreshNanos how long {@code written} still counts from now (store it at least that
   *     long)
   * @param forgotten a stored state of another shape was dropped because the policy that wrote it
   *     is no longer known
   */
  public record Result(
      KeyOutcome outcome, @Nullable StoredState written, long untilFreshNanos, boolean forgotten) {}

  /**
   * Decides {@code ops} on one key.
   *
   * @param stored the key's stored state, or null for a key never seen (or forgotten)
   * @param formerPolicy the policy that wrote a state of the given fingerprint, or null if unknown
   */
  public static Result decide(
      CompiledPolicy policy,
      @Nullable StoredState stored,
      IntFunction<@Nullable CompiledPolicy> formerPolicy,
      long nowNanos,
      KeyOp[] ops) {
    LimiterAlgorithm algorithm = policy.algorithm();
    long[] before = null;
    long[] state;
    boolean carried = false;
    boolean forgotten = false;
    if (stored == null) {
      state = algorithm.newState();
    } else if (stored.fingerprint() == policy.fingerprint()) {
      before = stored.values();
      // Copy: a store may hand out its own array; it must change only through what we return.
      state = algorithm.fit(before.clone());
    } else {
      CompiledPolicy former = formerPolicy.apply(stored.fingerprint());
      if (former != null) {
        state = carryOver(former.algorithm(), stored.values(), algorithm, nowNanos);
        carried = true;
      } else {
        state = algorithm.newState();
        forgotten = true;
      }
    }

    KeyOutcome outcome = new KeyOutcome(ops.length, nowNanos);
    boolean writes = false;
    for (int i = 0; i < ops.length; i++) {
      KeyOp op = ops[i];
      writes |= op.writes();
      try {
        Decision decision =
            switch (op.kind()) {
              case ACQUIRE -> algorithm.apply(state, nowNanos, op.permits());
              case PEEK -> algorithm.apply(state, nowNanos, 0);
              case RELEASE ->
                  op.admittedAtNanos() == KeyOp.UNKNOWN
                      ? algorithm.release(state, nowNanos, op.permits())
                      : algorithm.release(state, nowNanos, op.permits(), op.admittedAtNanos());
            };
        outcome.setDecision(i, policy.policy().shadow() ? decision.asShadow() : decision);
      } catch (InvalidPolicyException e) {
        outcome.setError(i, KeyOutcome.Code.INVALID, e.field(), e.getMessage());
      }
    }
    boolean changed =
        writes
            && (carried
                || (before != null
                    ? !Arrays.equals(before, state)
                    : !Arrays.equals(algorithm.newState(), state)));
    if (!changed) {
      return new Result(outcome, null, 0, forgotten);
    }
    return new Result(
        outcome,
        new StoredState(policy.fingerprint(), state),
        algorithm.untilFreshNanos(state, nowNanos),
        forgotten);
  }

  /**
   * {@code values}, written by {@code from}, as a state of {@code to} that counts what it counted
   * (see {@link dev.sluice.core.algorithm.Admissions}).
   */
  static long[] carryOver(
      LimiterAlgorithm from, long[] values, LimiterAlgorithm to, long nowNanos) {
    long[] fitted = from.fit(values.clone());
    return to.fromAdmissions(from.admissions(fitted, nowNanos), nowNanos);
  }
}
