package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;

/**
 * One algorithm, configured by a {@link Limit} (or a {@link Policy}'s several limits, as one {@link
 * LimitSet}), deciding on a key's state.
 *
 * <p>A key's state is a {@code long[]} whose layout belongs to the algorithm (each class documents
 * it). The array is owned by the caller: {@link #apply} reads it and, when the request is admitted
 * (or the policy counts denials), updates it in place. Nothing else is read or written, so a
 * decision is a pure function of (state, now, permits) and replays identically anywhere: in one
 * JVM, on the member that owns the key, or in a simulator. An array keeps the state fixed-size,
 * cheap to copy and trivial to serialize; the bounded sliding log is the one variable-size layout.
 *
 * <p>Time is nanoseconds since the Unix epoch, so windows align to the epoch on every member.
 */
public interface LimiterAlgorithm {

  /** The state of a key never seen before (or one past {@link #untilFreshNanos}). */
  long[] newState();

  /**
   * A state this algorithm can apply to, made from one stored under a possibly different limit:
   * {@code state} itself when its layout fits, otherwise a converted or fresh state. Callers pass
   * every stored state through here before {@link #apply}.
   */
  long[] fit(long[] state);

  /**
   * Decides a request for {@code permits} at {@code nowNanos}, updating {@code state} in place when
   * the request is admitted or the policy counts denials. {@code permits == 0} is a peek: it
   * reports the state and changes nothing.
   *
   * <p>Precisely: {@code state} is written iff {@code permits > 0} and the request is admitted or
   * the policy sets {@code countDenied}. Otherwise it is left bit for bit as it was, so a caller
   * (the grid's entry processor) can skip storing it.
   *
   * @throws dev.sluice.core.InvalidPolicyException naming the field {@code cost} if {@code permits}
   *     is negative or above {@link #capacity()}
   */
  Decision apply(long[] state, long nowNanos, long permits);

  /**
   * The most permits one request may ask for: more could never be admitted, so asking is an error
   * rather than a denial forever.
   */
  long capacity();

  /**
   * How long from {@code nowNanos} until {@code state} decides exactly as a fresh state would, if
   * nothing else is counted: the earliest instant a store may forget it. Never negative; 0 when it
   * is fresh already.
   *
   * <p>Stores that expire entries (the grid's TTL, the local limiter's sweep) MUST keep a state at
   * least this long after writing it, or its key gets a fresh budget early: an over-admission. The
   * answer reads the state itself, not only the policy, so a state written under an older, slower
   * rule (a TAT further ahead than this policy would put it) is kept as long as it still counts.
   */
  long untilFreshNanos(long[] state, long nowNanos);

  /**
   * Gives back {@code permits} admitted earlier, and reports the state as a peek then sees it. It
   * never frees more than the key holds (a bucket does not fill past its capacity) nor more than
   * the current window admitted (a window algorithm takes them off the current window's count, or
   * the newest entries of its log or buckets); what the caller releases beyond that is ignored.
   * Releasing permits admitted in an earlier window therefore frees nothing, which is the strict
   * side: a permit counted in the previous window cannot be told apart from anyone else's.
   *
   * @throws dev.sluice.core.InvalidPolicyException naming {@code cost} if {@code permits} is
   *     negative or above {@link #capacity()}
   */
  Decision release(long[] state, long nowNanos, long permits);

  /**
   * Gives back {@code permits} that this key admitted at {@code admittedAtNanos} (the owner's
   * clock, as the admitting decision read it), freeing no more than forgetting that admission
   * would: the exact undo of a grant, for all-or-nothing batches and leases. Window algorithms take
   * the permits off the window, log entries or bucket they were counted in; the rate algorithms
   * free their {@code p·T} of debt less the time since the admission (an idle spell since then may
   * already have drained part of it, and which part cannot be told), so a late return frees less,
   * never more.
   */
  Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos);

  /**
   * Charges a lease of {@code permits} granted at {@code nowNanos} for at most {@code
   * lifetimeNanos}: permits admitted now for a holder to hand out to requests until the lease
   * expires. The caller has checked that they fit now (a request for them would be admitted).
   * Returns the instant the lease expires, at most {@code nowNanos + lifetimeNanos}, or {@code
   * nowNanos} when this algorithm does not lease (nothing is charged then).
   *
   * <p>A lease never admits more than the owner alone would have: its permits are charged so that
   * any request the holder answers with them, at any instant before the expiry, is one the owner
   * would have admitted at that instant, and leaves a state at least as strict. Window algorithms
   * charge the current window (or bucket) and end the lease with it; the log and the rate
   * algorithms charge as of the expiry, the latest instant a permit can be used
   * (docs/algorithms.md, "Leases").
   */
  long lease(long[] state, long nowNanos, long permits, long lifetimeNanos);

  /**
   * How long a lease may last on this algorithm when its permits are a small share of what is left
   * (docs/algorithms.md, "Leases to the end of the window"): the length of the window or bucket
   * that counts a lease, for the algorithms that end a lease there whatever lifetime is asked and
   * whose charge does not grow with the lease's length; 0 for the others (the log and the rate
   * algorithms charge as of the lease's end, a set's limits end their windows at different
   * instants), which lease only for the short lifetime of {@link
   * dev.sluice.core.Policy#maxLeaseNanos}.
   */
  default long windowLeaseNanos() {
    return 0;
  }

  /**
   * Charges a paced lease of at most {@code permits} for at most {@code lifetimeNanos}, on a key at
   * its limit: the permits that free up one after another within the lifetime, counted now, each
   * usable from the instant the owner alone would first have admitted it ({@link PacedLease}).
   * Returns {@link PacedLease#NONE}, charging nothing, where none free up within the lifetime or
   * the algorithm does not pace (the default: only {@link SlidingWindow} does; see
   * docs/algorithms.md, "Paced leases").
   */
  default PacedLease paceLease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    return PacedLease.NONE;
  }

  /**
   * Gives back {@code permits} of a lease granted at {@code grantedAtNanos} with {@code
   * lifetimeNanos} that the holder did not use: the exact undo of how {@link #lease} charged them,
   * never freeing more than forgetting them would. By default the window algorithms' undo: their
   * lease counts in the window of its grant, as an admission at that instant does.
   */
  default Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    return release(state, nowNanos, permits, grantedAtNanos);
  }

  /**
   * What {@code state} still counts, each permit placed at the latest instant it can have been
   * admitted and never after {@code nowNanos}: the conservative summary a rule change carries over
   * into another algorithm's state ({@link Admissions}).
   */
  Admissions admissions(long[] state, long nowNanos);

  /**
   * A state of this algorithm that counts {@code admissions} as if each had been admitted at its
   * instant, whatever the limit (none is refused): the other half of carrying a state over. Only
   * what this algorithm would still count at {@code nowNanos} is kept.
   */
  long[] fromAdmissions(Admissions admissions, long nowNanos);

  /**
   * The earliest instant at which a request decided on {@code state} may proceed: the start of the
   * window a booking ahead counted in ({@link Booking}), or {@link Long#MIN_VALUE} when the state
   * counts bookings where they fall by itself (the log's future timestamps, a schedule's debt).
   * Before it, a window algorithm's state no longer holds the count of the real current window, so
   * a request is decided as of this instant and waits for it.
   */
  default long notBeforeNanos(long[] state) {
    return Long.MIN_VALUE;
  }

  /**
   * Decides a request made at {@code nowNanos} as if it arrived at {@code atNanos >= nowNanos}: the
   * booking step of {@link Booking}, tried on a copy and kept if it admits. Updates {@code state}
   * as {@link #apply} does, except that no penalty is counted, and that what it drops must still
   * count for requests decided between now and {@code atNanos}: by default {@code apply(state,
   * atNanos, permits)}, which is right where such requests wait for {@link #notBeforeNanos} (the
   * windows) or where the state keeps every permit until its own expiry (the schedules).
   */
  default Decision applyAt(long[] state, long nowNanos, long atNanos, long permits) {
    return apply(state, atNanos, permits);
  }

  /**
   * Gives back the permit {@code permitId} an admission of a concurrency limit holds, and reports
   * the state as a peek then sees it. An unknown id (released already, or expired) frees nothing.
   *
   * @throws dev.sluice.core.InvalidPolicyException naming {@code permitId} for every other
   *     algorithm, which holds no permit ids
   */
  default Decision releasePermit(long[] state, long nowNanos, long permitId) {
    throw new dev.sluice.core.InvalidPolicyException(
        "permitId", "only a concurrency rule holds permit ids; release a count of permits instead");
  }

  /** The algorithm of {@code policy}: its one limit's, or all of them as one {@link LimitSet}. */
  static LimiterAlgorithm of(Policy policy) {
    if (policy.isSingle()) {
      return of(policy.only(), policy.countDenied());
    }
    return new LimitSet(policy.limits(), policy.countDenied());
  }

  /**
   * The algorithm of {@code policy} as if it set {@code countDenied}: it counts every request,
   * admitted or not, each algorithm within its own penalty bound (a rate algorithm's debt stops one
   * window beyond empty). How a reservation committed above its estimate is charged.
   */
  static LimiterAlgorithm charging(Policy policy) {
    if (policy.isSingle()) {
      return of(policy.only(), true);
    }
    return new LimitSet(policy.limits(), true);
  }

  /** The algorithm {@code limit} names, configured by it. */
  static LimiterAlgorithm of(Limit limit, boolean countDenied) {
    return switch (limit.algorithm()) {
      case SLIDING_WINDOW -> new SlidingWindow(limit, countDenied);
      case FIXED_WINDOW -> new FixedWindow(limit, countDenied);
      case SLIDING_LOG -> new SlidingLog(limit, countDenied);
      case SLIDING_BUCKETS -> new SlidingBuckets(limit, countDenied);
      case TOKEN_BUCKET -> new TokenBucket(limit, countDenied);
      case GCRA -> new Gcra(limit, countDenied);
      case LEAKY_BUCKET -> new LeakyBucket(limit, countDenied);
      case CONCURRENCY -> new Concurrency(limit);
    };
  }
}
