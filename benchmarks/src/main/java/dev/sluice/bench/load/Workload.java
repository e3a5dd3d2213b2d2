package dev.sluice.bench.load;

import java.time.Duration;

/**
 * How a contender is driven: {@code threads} closed-loop callers on {@code keys}; a warm-up, then
 * {@code rounds} measured rounds, each bounded by {@code roundDuration} AND {@code maxOpsPerRound}
 * (whichever comes first), so no run can go on forever whatever the contender does. With {@code
 * countExactness} every admission is judged against the contender's rule ({@link
 * Contender#enforced}).
 */
public record Workload(
    int threads,
    KeySpace keys,
    Duration warmup,
    Duration roundDuration,
    int rounds,
    long maxOpsPerRound,
    boolean countExactness) {

  public Workload {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1, was " + rounds);
    }
    if (maxOpsPerRound < threads) {
      throw new IllegalArgumentException(
          "maxOpsPerRound must be at least the thread count, was " + maxOpsPerRound);
    }
    if (roundDuration.isNegative() || roundDuration.isZero()) {
      throw new IllegalArgumentException("roundDuration must be positive, was " + roundDuration);
    }
  }

  /**
   * The lead-in before each measured round ({@link LoadDriver}): a fifth of a round, tallied for
   * exactness, not measured.
   */
  public Duration leadIn() {
    return roundDuration.dividedBy(5);
  }

  public Workload withThreads(int newThreads) {
    return new Workload(
        newThreads, keys, warmup, roundDuration, rounds, maxOpsPerRound, countExactness);
  }

  public Workload withKeys(KeySpace newKeys) {
    return new Workload(
        threads, newKeys, warmup, roundDuration, rounds, maxOpsPerRound, countExactness);
  }

  /** The same workload, judging every admission against the contender's rule. */
  public Workload countingExactness() {
    return new Workload(threads, keys, warmup, roundDuration, rounds, maxOpsPerRound, true);
  }
}
