package dev.sluice.core.decision;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReservationException;
import dev.sluice.core.algorithm.Booking;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.algorithm.PacedLease;
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
 *       window, algorithm, buckets or list of limits, or an inline policy under a state name came
 *       with other parameters), carry it over: the former policy's {@link
 *       LimiterAlgorithm#admissions} become this policy's state ({@link
 *       LimiterAlgorithm#fromAdmissions}), never more permissive than what was admitted. The former
 *       policy is the rule record's, or the one the state kept ({@link StoredState#writer()}). A
 *       state whose former policy is no longer known starts afresh, and the result says so.
 *   <li>Decide each operation in order on that state: acquire (waiting up to its {@code maxWait}: a
 *       booking, {@link Booking}), release (plain, the exact undo of an admission at a given
 *       instant, a receipt's admission once within its window ({@link SpentReceipts}), or a
 *       concurrency permit by its id), peek, reserve and commit (the key's {@link
 *       ReservationLedger}, kept beside the algorithm's state and changed in the same step). A
 *       shadow policy reports would-be denials as allowances flagged {@code shadowDenied}, and a
 *       policy that shadow-bans flags its denials {@code shadowBanned}. A cost above the capacity
 *       is that operation's error and counts nothing.
 *   <li>Hand back the state to store when it changed, with how long it counts ({@link
 *       LimiterAlgorithm#untilFreshNanos}); a denial or a peek stores nothing.
 * </ol>
 */
public final class KeyDecision {
  private KeyDecision() {}

  /**
   * A lease to the end of its window holds at most this share of what is left after the request
   * (1/4): it is asked for keys far from their limit, and others keep at least three quarters. An
   * eighth made a warm key of 20 to 50 a second (asking for its second's worth) come back four or
   * five times a window (docs/decisions/warm-and-quiet-keys-to-window-end.md).
   */
  public static final long WINDOW_LEASE_SHARE = 4;

  /**
   * What deciding one key produced.
   *
   * @param outcome one answer per operation
   * @param written the state to store, or null when nothing is to be written
   * @param untilFreshNanos how long {@code written} still counts from now (store it at least that
   *     long)
   * @param forgotten a stored state of another shape was dropped because the policy that wrote it
   *     is no longer known
   * @param settledAtEstimate open reservations whose ttl had passed and that {@code written} no
   *     longer holds: settled at their estimate by this step (0 when nothing is written, so that a
   *     store counts each once)
   */
  public record Result(
      KeyOutcome outcome,
      @Nullable StoredState written,
      long untilFreshNanos,
      boolean forgotten,
      int settledAtEstimate) {}

  /**
   * Decides {@code ops} on one key whose stored state does not keep its writer.
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
    return decide(policy, stored, formerPolicy, nowNanos, ops, false);
  }

  /**
   * Decides {@code ops} on one key.
   *
   * @param stored the key's stored state, or null for a key never seen (or forgotten)
   * @param formerPolicy the policy that wrote a state of the given fingerprint, or null if unknown
   *     (then the policy the state kept, if it kept one)
   * @param storesPolicy whether the state written keeps {@code policy} as its writer ({@link
   *     dev.sluice.core.PolicyRef#storesPolicyWithState()})
   */
  public static Result decide(
      CompiledPolicy policy,
      @Nullable StoredState stored,
      IntFunction<@Nullable CompiledPolicy> formerPolicy,
      long nowNanos,
      KeyOp[] ops,
      boolean storesPolicy) {
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
      if (former == null && stored.writer() != null) {
        former = CompiledPolicy.of(stored.writer());
      }
      if (former != null) {
        state = carryOver(former.algorithm(), stored.values(), algorithm, nowNanos);
        carried = true;
      } else {
        state = algorithm.newState();
        forgotten = true;
      }
    }

    long[] storedLedger = stored == null ? ReservationLedger.EMPTY : stored.reservations();
    long[] ledger = ReservationLedger.purge(storedLedger, nowNanos);
    long[] storedSpent = stored == null ? SpentReceipts.EMPTY : stored.spentReceipts();
    long[] spent = storedSpent;

    KeyOutcome outcome = new KeyOutcome(ops.length, nowNanos);
    boolean writes = false;
    for (int i = 0; i < ops.length; i++) {
      KeyOp op = ops[i];
      writes |= op.writes();
      try {
        Decision decision =
            op.takes() && op.permits() > algorithm.capacity() && policy.policy().shadow()
                ? aboveShadowCapacity(algorithm, state, nowNanos)
                : switch (op.kind()) {
                  case ACQUIRE ->
                      Booking.acquire(
                          algorithm,
                          state,
                          nowNanos,
                          op.permits(),
                          policy.policy().shadow() ? 0 : op.maxWaitNanos());
                  case PEEK -> algorithm.apply(state, nowNanos, 0);
                  case RELEASE ->
                      op.admittedAtNanos() == KeyOp.UNKNOWN
                          ? algorithm.release(state, nowNanos, op.permits())
                          : algorithm.release(state, nowNanos, op.permits(), op.admittedAtNanos());
                  case RETURN_LEASE ->
                      algorithm.returnLease(
                          state, nowNanos, op.permits(), op.admittedAtNanos(), op.leaseNanos());
                  case RELEASE_PERMIT -> algorithm.releasePermit(state, nowNanos, op.permitId());
                  case RESERVE -> {
                    // Room first: a full ledger refuses before the estimate is counted.
                    long[] room = ReservationLedger.withRoom(ledger);
                    Decision reserved = reserve(policy, state, nowNanos, op);
                    if (reserved.permitId() != 0) {
                      ledger =
                          ReservationLedger.open(room, nowNanos, op.permits(), op.leaseNanos());
                      reserved = reserved.withPermitId(ReservationLedger.lastId(ledger));
                    }
                    yield reserved;
                  }
                  case COMMIT -> {
                    int at = openReservation(ledger, nowNanos, op);
                    Decision settled = commit(policy, state, nowNanos, ledger, at, op.permits());
                    ledger = ReservationLedger.commit(ledger, at, op.permits());
                    yield settled;
                  }
                  case RELEASE_RECEIPT -> {
                    Decision freed = releaseReceipt(policy, state, spent, nowNanos, op);
                    spent =
                        SpentReceipts.spend(
                            spent,
                            op.admittedAtNanos(),
                            op.permitId(),
                            nowNanos,
                            policy::receiptWindowEndNanos);
                    yield freed;
                  }
                };
        if (op.leasePermits() > 0
            && op.maxWaitNanos() == 0
            && decision.delayNanos() == 0
            && !decision.shadowDenied()) {
          decision = lease(policy, state, nowNanos, op, decision, outcome, i);
        }
        outcome.setDecision(i, reported(policy.policy(), op, decision));
      } catch (InvalidPolicyException e) {
        outcome.setError(i, KeyOutcome.Code.INVALID, e.field(), e.getMessage());
      } catch (ReservationException e) {
        outcome.setError(i, KeyOutcome.Code.RESERVATION, e.reason().name(), e.getMessage());
      } catch (ReleaseException e) {
        outcome.setError(i, KeyOutcome.Code.RELEASE, e.reason().name(), e.getMessage());
      }
    }
    boolean changed =
        writes
            && (carried
                || !Arrays.equals(storedLedger, ledger)
                || !Arrays.equals(storedSpent, spent)
                || (before != null
                    ? !Arrays.equals(before, state)
                    : !Arrays.equals(algorithm.newState(), state)));
    if (!changed) {
      return new Result(outcome, null, 0, forgotten, 0);
    }
    return new Result(
        outcome,
        new StoredState(
            policy.fingerprint(), state, ledger, spent, storesPolicy ? policy.policy() : null),
        Math.max(
            Math.max(
                algorithm.untilFreshNanos(state, nowNanos),
                ReservationLedger.untilExpiredNanos(ledger, nowNanos)),
            SpentReceipts.untilForgettableNanos(spent, nowNanos, policy::receiptWindowEndNanos)),
        forgotten,
        ReservationLedger.expiredOpen(storedLedger, nowNanos));
  }

  /**
   * A shadow policy's answer to a request for more than it can ever hold: an enforced policy
   * refuses such a cost as invalid, but a shadow policy never denies nor refuses (envoyproxy/
   * ratelimit answers OK under shadow mode whatever {@code hits_addend} asks). So it is the
   * would-be denial it is, flagged once the policy's shadow is applied, and it counts nothing: no
   * penalty either, since no limit could have admitted it. It reports on the limit a peek binds.
   */
  private static Decision aboveShadowCapacity(
      LimiterAlgorithm algorithm, long[] state, long nowNanos) {
    Decision now = algorithm.apply(state, nowNanos, 0);
    return Decision.deny(now.limit(), now.remaining(), 0, now.resetAfterNanos())
        .withBindingLimit(now.bindingLimitIndex(), now.bindingResetAfterNanos());
  }

  /**
   * The decision as the policy reports it: a shadow policy's denial as an allowance flagged {@code
   * shadowDenied}; a denied acquire or reserve under a policy that shadow-bans flagged {@code
   * shadowBanned} (still a denial: nothing was admitted).
   */
  private static Decision reported(Policy policy, KeyOp op, Decision decision) {
    if (policy.shadow()) {
      return decision.asShadow();
    }
    return policy.shadowBans() && op.takes() ? decision.asShadowBan() : decision;
  }

  /**
   * Takes a reservation's estimate as an acquire that does not wait would. An admission that counts
   * is answered with a non-zero {@link Decision#permitId()} as a marker, replaced by the
   * reservation's id once the ledger holds it; a shadow policy's would-be denial counts nothing, so
   * it opens no reservation. A concurrency policy holds its permits by id and has no estimate to
   * settle: it refuses.
   */
  private static Decision reserve(CompiledPolicy policy, long[] state, long nowNanos, KeyOp op) {
    if (policy.policy().inFlight()) {
      throw new InvalidPolicyException(
          "reservation",
          "a concurrency rule holds its permits by id: acquire them, then release them by"
              + " permitId");
    }
    Decision decision = Booking.acquire(policy.algorithm(), state, nowNanos, op.permits(), 0);
    return decision.allowed() ? decision.withPermitId(1) : decision;
  }

  /**
   * Gives back the admission a receipt proves (the caller checked its seal): its exact undo, as an
   * all-or-nothing batch gives back its admissions (the lease's exact undo for an answer from a
   * lease, the permit itself under a concurrency policy, whose admission numbers its permits). Only
   * within the window it was admitted in, and only once: the key's spent receipts say whether it
   * was given back before ({@link SpentReceipts}).
   *
   * @throws ReleaseException if its window has ended, or it was given back already
   */
  private static Decision releaseReceipt(
      CompiledPolicy policy, long[] state, long[] spent, long nowNanos, KeyOp op) {
    long admittedAt = op.admittedAtNanos();
    if (nowNanos >= policy.receiptWindowEndNanos(admittedAt)) {
      throw new ReleaseException(
          ReleaseException.Reason.EXPIRED,
          "receipt: the window its permits were admitted in has ended, and they count in no"
              + " window now; nothing was freed");
    }
    if (SpentReceipts.spent(spent, admittedAt, op.permitId())) {
      throw new ReleaseException(
          ReleaseException.Reason.SPENT,
          "receipt: was given back already (a receipt frees once); nothing was freed");
    }
    LimiterAlgorithm algorithm = policy.algorithm();
    if (policy.policy().inFlight()) {
      return algorithm.releasePermit(state, nowNanos, op.permitId());
    }
    return op.leaseNanos() > 0
        ? algorithm.returnLease(state, nowNanos, op.permits(), admittedAt, op.leaseNanos())
        : algorithm.release(state, nowNanos, op.permits(), admittedAt);
  }

  /**
   * The position of the open reservation {@code op} commits.
   *
   * @throws ReservationException if the ledger holds none: expired (the instant in its id has
   *     passed: it was settled at its estimate), committed already, or unknown
   */
  private static int openReservation(long[] ledger, long nowNanos, KeyOp op) {
    long id = op.permitId();
    int at = ReservationLedger.find(ledger, id);
    if (at >= 0 && ReservationLedger.settled(ledger, at) != ReservationLedger.OPEN) {
      throw new ReservationException(
          ReservationException.Reason.COMMITTED,
          "reservation "
              + id
              + " was committed already, at a cost of "
              + ReservationLedger.settled(ledger, at)
              + "; the first commit stands");
    }
    if (at < 0 && nowNanos >= op.admittedAtNanos()) {
      throw new ReservationException(
          ReservationException.Reason.EXPIRED,
          "reservation "
              + id
              + " expired before it was committed and was settled at its estimate; nothing"
              + " changed");
    }
    if (at < 0) {
      throw new ReservationException(
          ReservationException.Reason.UNKNOWN,
          "no reservation "
              + id
              + " is open on this key: it was never issued here, or the key was reset since");
    }
    return at;
  }

  /**
   * Settles the reservation at {@code at} at {@code cost}: an over-estimate is given back as the
   * exact undo of that part of its admission ({@link LimiterAlgorithm#release(long[], long, long,
   * long)}, never freeing more than forgetting it would); an under-estimate is charged now whether
   * or not the key has room, as a denial is under {@code countDenied} ({@link
   * CompiledPolicy#charging()}), at most one capacity of it so that the debt a commit leaves is
   * bounded: the rate algorithms go into debt (capped at one window beyond empty), so the next
   * requests wait; a window algorithm counts past its limit until the window ends. Answers the
   * key's state after that, as a peek would see it.
   */
  private static Decision commit(
      CompiledPolicy policy, long[] state, long nowNanos, long[] ledger, int at, long cost) {
    LimiterAlgorithm algorithm = policy.algorithm();
    if (cost > Limit.MAX_LIMIT) {
      throw new InvalidPolicyException(
          "cost", "must be at most " + Limit.MAX_LIMIT + ", was " + cost + "; nothing was settled");
    }
    long estimate = ReservationLedger.estimate(ledger, at);
    if (cost < estimate) {
      return algorithm.release(
          state, nowNanos, estimate - cost, ReservationLedger.admittedAt(ledger, at));
    }
    if (cost > estimate) {
      policy.charging().apply(state, nowNanos, Math.min(cost - estimate, algorithm.capacity()));
    }
    return algorithm.apply(state, nowNanos, 0);
  }

  /**
   * Grants an acquire's caller a lease on top, if the policy allows it.
   *
   * <p>After an admission: at most what it asked for, and at most half of what is left after its
   * request, so that the last permits of a key are always decided here and several holders can
   * never take them all (each takes at most half of what the one before left). Below two permits
   * left, nothing is leased. The lease ends after at most {@link Policy#maxLeaseNanos}, sooner
   * where the algorithm says so (the end of the current window).
   *
   * <p>An ask {@link LeaseAsk#UNTIL_WINDOW_END} (a steady key's) is granted at most a quarter of
   * what is left, until the end of the window (or bucket) that counts it, and only by an algorithm
   * whose lease ends there ({@link LimiterAlgorithm#windowLeaseNanos}); otherwise nothing. Such a
   * lease is exact for as long as the window lasts, as a short one is (docs/algorithms.md, "Leases
   * to the end of the window"); the quarter bounds what it parks. An ask {@link
   * LeaseAsk#WINDOW_SHORT_OR_PACED} (a warm key's) is granted the same where it can be, marked so
   * that its holder knows; otherwise it is answered as a short or paced ask for the part of its
   * permits that falls within the short lifetime.
   *
   * <p>An ask {@link LeaseAsk#SHORT_OR_PACED} (a hot key's, from a holder that reads paced leases)
   * on a key with nothing to spare, admitted or denied, is granted a paced lease where the
   * algorithm paces ({@link LimiterAlgorithm#paceLease}): the permits that free up within {@link
   * Policy#maxLeaseNanos}, each usable from the instant this owner would first have admitted it
   * (docs/algorithms.md, "Paced leases"). Never on a policy that counts denials: the holder answers
   * the requests between those instants with denials, which would then not be counted.
   *
   * <p>An ask {@link LeaseAsk#REGION_BUDGET} (a region's budget) is granted a lease to the end of
   * the window as {@link LeaseAsk#WINDOW_SHORT_OR_PACED} is where it can be; otherwise a paced
   * lease to the end of the window of at most half of what frees up before then ({@link
   * #paceToWindowEnd}), never a short one.
   *
   * <p>Returns the request's own decision: what the key has left for this caller, the lease
   * included (its holder counts the lease down from there, {@code LeaseHolder}).
   */
  private static Decision lease(
      CompiledPolicy policy,
      long[] state,
      long nowNanos,
      KeyOp op,
      Decision decision,
      KeyOutcome outcome,
      int index) {
    if (!policy.leases()) {
      return decision;
    }
    LimiterAlgorithm algorithm = policy.algorithm();
    long ask = op.leaseNanos();
    if (ask == LeaseAsk.UNTIL_WINDOW_END
        || ask == LeaseAsk.WINDOW_SHORT_OR_PACED
        || ask == LeaseAsk.REGION_BUDGET) {
      long permits = Math.min(op.leasePermits(), decision.remaining() / WINDOW_LEASE_SHARE);
      long lifetime = algorithm.windowLeaseNanos();
      if (decision.allowed() && permits >= 1 && lifetime > 0) {
        long endsAt = algorithm.lease(state, nowNanos, permits, lifetime);
        if (ask == LeaseAsk.UNTIL_WINDOW_END) {
          outcome.setLease(index, permits, endsAt); // the asker knows what it asked for
        } else {
          outcome.setLeaseToWindowEnd(index, permits, endsAt);
        }
        return decision;
      }
      if (ask == LeaseAsk.UNTIL_WINDOW_END) {
        return decision;
      }
      if (ask == LeaseAsk.REGION_BUDGET) {
        PacedLease paced = paceToWindowEnd(policy, state, nowNanos, op.leasePermits());
        if (paced.permits() > 0) {
          outcome.setPacedLease(index, paced);
        }
        return decision;
      }
    }
    long maxLease = policy.policy().maxLeaseNanos();
    long permits = Math.min(shortShare(op, maxLease), decision.remaining() / 2);
    long lifetime = Math.min(ask, maxLease);
    if (!decision.allowed() || permits < 1 || lifetime <= 0) {
      PacedLease paced = pace(policy, state, nowNanos, op);
      if (paced.permits() > 0) {
        outcome.setPacedLease(index, paced);
      }
      return decision;
    }
    long endsAt = algorithm.lease(state, nowNanos, permits, lifetime);
    if (endsAt <= nowNanos) {
      return decision; // this algorithm does not lease (a leaky bucket shapes instead)
    }
    outcome.setLease(index, permits, endsAt);
    return decision;
  }

  /**
   * The permits a short or paced lease answers {@code op}'s ask with at most: what it asked for,
   * or, for an ask {@link LeaseAsk#WINDOW_SHORT_OR_PACED} (a second's worth of requests), the part
   * of it that falls within the short lifetime {@code maxLeaseNanos}, rounded up.
   */
  private static long shortShare(KeyOp op, long maxLeaseNanos) {
    if (op.leaseNanos() != LeaseAsk.WINDOW_SHORT_OR_PACED) {
      return op.leasePermits();
    }
    return Math.max(1, (long) Math.ceil(op.leasePermits() * (maxLeaseNanos / 1e9)));
  }

  /**
   * The paced lease of {@link #lease}, counted in {@code state}, where one is asked for and the
   * policy may pace; {@link PacedLease#NONE} otherwise.
   */
  private static PacedLease pace(CompiledPolicy policy, long[] state, long nowNanos, KeyOp op) {
    boolean readsPaced =
        op.leaseNanos() == LeaseAsk.SHORT_OR_PACED
            || op.leaseNanos() == LeaseAsk.WINDOW_SHORT_OR_PACED;
    // Not where denials count, nor where they are shadow bans: the holder answers the requests
    // between a paced lease's instants with plain denials, which would then not be counted, or
    // not marked.
    if (!readsPaced || policy.policy().countDenied() || policy.policy().shadowBans()) {
      return PacedLease.NONE;
    }
    long maxLease = policy.policy().maxLeaseNanos();
    return policy.algorithm().paceLease(state, nowNanos, shortShare(op, maxLease), maxLease);
  }

  /**
   * A region's paced lease ({@link LeaseAsk#REGION_BUDGET}), counted in {@code state}: up to {@code
   * asked} of the permits that free up before the window ends, and at most half of them (rounded
   * up), so that the other regions asking after it find the rest; {@link PacedLease#NONE} where the
   * policy may not pace (see {@link #pace}). How many free up is what the algorithm would pace
   * unbounded, asked of a copy of the state that is then dropped.
   */
  private static PacedLease paceToWindowEnd(
      CompiledPolicy policy, long[] state, long nowNanos, long asked) {
    if (policy.policy().countDenied() || policy.policy().shadowBans()) {
      return PacedLease.NONE;
    }
    LimiterAlgorithm algorithm = policy.algorithm();
    // A lifetime without bound: the algorithm ends a paced lease with its window.
    long freeing =
        algorithm.paceLease(state.clone(), nowNanos, Long.MAX_VALUE, Long.MAX_VALUE).permits();
    long permits = Math.min(asked, (freeing + 1) / 2);
    return permits < 1
        ? PacedLease.NONE
        : algorithm.paceLease(state, nowNanos, permits, Long.MAX_VALUE);
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
