package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;

/**
 * One algorithm, configured by a {@link Policy}, deciding on a key's state.
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

  /** The algorithm {@code policy} names, configured by it. */
  static LimiterAlgorithm of(Policy policy) {
    return switch (policy.algorithm()) {
      case SLIDING_WINDOW -> new SlidingWindow(policy);
      case FIXED_WINDOW -> new FixedWindow(policy);
      case SLIDING_LOG -> new SlidingLog(policy);
      case SLIDING_BUCKETS -> new SlidingBuckets(policy);
      case TOKEN_BUCKET -> new TokenBucket(policy);
      case GCRA -> new Gcra(policy);
      case LEAKY_BUCKET -> new LeakyBucket(policy);
    };
  }
}
