package dev.sluice.bench.load.exactness;

import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;

/**
 * What a rule allows one key, judged from counts of admissions per sub-window, and how many
 * admissions went beyond it.
 *
 * <h2>Why counts and not timestamps</h2>
 *
 * {@code dev.sluice.core.contract.AdmissionBounds} (limiter-core's test-jar) judges a list of
 * admissions, each with the instant its request was sent and the instant its answer came back. A
 * load run admits millions of requests, and the token-bucket check over a list is cubic in its
 * length, so the load harness keeps one counter per key per sub-window instead ({@link
 * AdmissionTally}): an admission is counted in sub-window {@code i} only when it was surely decided
 * inside it, that is sent (less a clock slack) and answered inside the same sub-window. It is the
 * same "surely inside" rule that {@code AdmissionBounds} applies, at sub-window resolution, so a
 * correct limiter is never blamed and everything counted here {@code AdmissionBounds} would also
 * refuse ({@code AdmissionBoundTest} checks both against the same traces). An admission that
 * straddles a sub-window edge is not counted at all: the figure undercounts, by the share of
 * admissions reported as not judged.
 *
 * <h2>What "over-admitted" means</h2>
 *
 * The fewest counted admissions that must be taken away for the rest to fit the bound. Each
 * implementation says how it gets there and why the figure is never larger than that.
 */
public interface AdmissionBound {

  /** Sub-windows per rule window: 1/16, the resolution {@code AdmissionBounds} cuts windows at. */
  int SUB_WINDOWS = 16;

  /**
   * The length of one sub-window, in nanoseconds; sub-window {@code i} starts at {@code i × it}.
   */
  long subWindowNanos();

  /**
   * The over-admissions of one key. Entries {@code from} (inclusive) to {@code to} (exclusive) of
   * {@code subWindows} are ascending epoch sub-window indexes, each with the count of admissions
   * surely decided in it ({@code counts}, at least 1).
   */
  long overAdmitted(long[] subWindows, int[] counts, int from, int to);

  /** The bound in words, for the report. */
  String describe();

  /**
   * The bound of {@code policy}'s algorithm: the sliding-window estimate for {@code
   * sliding_window}, burst plus rate for {@code token_bucket}, {@code gcra} and {@code
   * leaky_bucket}.
   *
   * @throws IllegalArgumentException for an algorithm without a counter-based bound here, or a
   *     window that does not split into {@value #SUB_WINDOWS} whole nanosecond sub-windows
   */
  static AdmissionBound of(Policy policy) {
    long windowNanos = policy.windowNanos();
    if (windowNanos % SUB_WINDOWS != 0) {
      throw new IllegalArgumentException(
          "the window must be a multiple of " + SUB_WINDOWS + " ns, was " + windowNanos);
    }
    return switch (policy.algorithm()) {
      case SLIDING_WINDOW -> new SlidingWindowBound(policy.limit(), windowNanos);
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET ->
          new TokenBucketBound(LimiterAlgorithm.of(policy).capacity(), policy.limit(), windowNanos);
      default ->
          throw new IllegalArgumentException(
              "no counter-based bound for " + policy.algorithm() + " in the load harness");
    };
  }
}
