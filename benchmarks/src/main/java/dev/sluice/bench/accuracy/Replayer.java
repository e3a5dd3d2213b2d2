package dev.sluice.bench.accuracy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.time.Duration;

/**
 * Replays a {@link Trace} through one algorithm and judges every decision against the exact sliding
 * log.
 *
 * <h2>Judging a decision</h2>
 *
 * The exact rule is: admit a request at {@code t} iff fewer than {@code L} requests were admitted
 * in {@code (t - W, t]}. Which requests were admitted depends on who decided, so there are two ways
 * to judge an approximate algorithm:
 *
 * <ul>
 *   <li><b>Against its own history</b> (the headline figures). A judge log records exactly the
 *       requests the algorithm under test admitted, and says for each request what the exact rule
 *       would answer given that history. A false allow is an admission the exact rule would refuse
 *       at that moment; a false deny, a refusal it would grant. One early difference is counted
 *       once, not again for every later request whose state it shifted.
 *   <li><b>Against an independent sliding log</b> (for comparison). The real {@code sliding_log}
 *       algorithm decides the same trace on its own state; after the first disagreement the two
 *       states diverge and later disagreements are partly echoes, so this rate overstates error.
 * </ul>
 *
 * <h2>Per-source criteria (as Cloudflare reported them)</h2>
 *
 * A source is <i>over the threshold</i> if in some trailing window its raw requests exceed {@code
 * L}. A source under it should never be limited; a source over it should be limited at some point
 * (else it was <i>missed</i>, and how far above the threshold it went says how bad that was).
 * <i>Overshoot</i> is the most permits the algorithm admitted in any trailing window, relative to
 * {@code L}: 1.0 for an exact algorithm, up to 2.0 for fixed windows. <i>Mean rate error</i> is the
 * mean over sources of {@code |admitted - admitted by sliding_log| / admitted by sliding_log}.
 */
public final class Replayer {
  private Replayer() {}

  /** The outcome of one algorithm on one trace. */
  public record Result(
      String trace,
      Algorithm algorithm,
      long requests,
      long admitted,
      long falseAllows,
      long falseDenies,
      long disagreementsWithIndependentLog,
      int sourcesUnderThreshold,
      int underThresholdLimited,
      int sourcesOverThreshold,
      int overThresholdMissed,
      double worstMissedExcess,
      double overshoot,
      double meanRateError,
      long underThresholdRequests,
      long underThresholdWrong) {

    public double falseAllowRate() {
      return ratio(falseAllows, requests);
    }

    public double falseDenyRate() {
      return ratio(falseDenies, requests);
    }

    public double wrongRate() {
      return ratio(falseAllows + falseDenies, requests);
    }

    /** Wrong decisions among the requests of sources that never exceeded the threshold. */
    public double underThresholdWrongRate() {
      return ratio(underThresholdWrong, underThresholdRequests);
    }

    public double independentDisagreementRate() {
      return ratio(disagreementsWithIndependentLog, requests);
    }

    private static double ratio(long part, long whole) {
      return whole == 0 ? 0 : (double) part / whole;
    }
  }

  /** The policy {@code algorithm} runs under for {@code trace}, with its defaults. */
  public static Policy policy(Trace trace, Algorithm algorithm) {
    return Policy.builder()
        .algorithm(algorithm)
        .limit(trace.limit())
        .window(Duration.ofNanos(trace.windowNanos()))
        .build();
  }

  public static Result replay(Trace trace, Algorithm algorithm) {
    LimiterAlgorithm underTest = LimiterAlgorithm.of(policy(trace, algorithm));
    LimiterAlgorithm exact = LimiterAlgorithm.of(policy(trace, Algorithm.SLIDING_LOG));
    long limit = trace.limit();
    long windowNanos = trace.windowNanos();

    long admitted = 0;
    long falseAllows = 0;
    long falseDenies = 0;
    long disagreements = 0;
    int under = 0;
    int underLimited = 0;
    int over = 0;
    int overMissed = 0;
    double worstMissedExcess = 0;
    long mostInAnyWindow = 0;
    double rateErrorSum = 0;
    int rateErrorSources = 0;
    long underRequests = 0;
    long underWrong = 0;

    TrailingWindow judge = new TrailingWindow(windowNanos, limit);
    for (long[] times : trace.sources()) {
      long[] state = underTest.newState();
      long[] exactState = exact.newState();
      judge.clear();
      boolean everDenied = false;
      long sourceAdmitted = 0;
      long exactAdmitted = 0;
      long sourceWrong = 0;
      for (long t : times) {
        boolean exactWould = judge.countAt(t) < limit;
        Decision decision = underTest.apply(state, t, 1);
        boolean independent = exact.apply(exactState, t, 1).allowed();
        if (decision.allowed()) {
          judge.add(t);
          mostInAnyWindow = Math.max(mostInAnyWindow, judge.size());
          sourceAdmitted++;
          if (!exactWould) {
            falseAllows++;
            sourceWrong++;
          }
        } else {
          everDenied = true;
          if (exactWould) {
            falseDenies++;
            sourceWrong++;
          }
        }
        if (independent) {
          exactAdmitted++;
        }
        if (independent != decision.allowed()) {
          disagreements++;
        }
      }
      admitted += sourceAdmitted;
      if (exactAdmitted > 0) {
        rateErrorSum += Math.abs(sourceAdmitted - exactAdmitted) / (double) exactAdmitted;
        rateErrorSources++;
      }
      long peak = mostInTrailingWindow(times, windowNanos);
      if (peak <= limit) {
        under++;
        underRequests += times.length;
        underWrong += sourceWrong;
        if (everDenied) {
          underLimited++;
        }
      } else {
        over++;
        if (!everDenied) {
          overMissed++;
          worstMissedExcess = Math.max(worstMissedExcess, (double) peak / limit - 1);
        }
      }
    }
    return new Result(
        trace.name(),
        algorithm,
        trace.requests(),
        admitted,
        falseAllows,
        falseDenies,
        disagreements,
        under,
        underLimited,
        over,
        overMissed,
        worstMissedExcess,
        (double) mostInAnyWindow / limit,
        rateErrorSources == 0 ? 0 : rateErrorSum / rateErrorSources,
        underRequests,
        underWrong);
  }

  /** The most of {@code times} (ascending) that fall in any {@code (t - W, t]}. */
  static long mostInTrailingWindow(long[] times, long windowNanos) {
    long most = 0;
    int oldest = 0;
    for (int i = 0; i < times.length; i++) {
      while (times[oldest] <= times[i] - windowNanos) {
        oldest++;
      }
      most = Math.max(most, i - oldest + 1);
    }
    return most;
  }

  /**
   * The exact rule's memory: the admitted times still inside {@code (now - W, now]}, as a ring that
   * grows when an over-admitting algorithm puts more than expected in one window.
   */
  static final class TrailingWindow {
    private final long windowNanos;
    private long[] ring;
    private int head;
    private int size;

    TrailingWindow(long windowNanos, long expected) {
      this.windowNanos = windowNanos;
      this.ring = new long[(int) Math.max(16, 2 * expected + 2)];
    }

    void clear() {
      head = 0;
      size = 0;
    }

    /** Drops times at or before {@code now - W} and returns how many remain. */
    long countAt(long nowNanos) {
      long horizon = nowNanos - windowNanos;
      while (size > 0 && ring[head] <= horizon) {
        head = (head + 1) % ring.length;
        size--;
      }
      return size;
    }

    void add(long nowNanos) {
      if (size == ring.length) {
        long[] bigger = new long[ring.length * 2];
        for (int i = 0; i < size; i++) {
          bigger[i] = ring[(head + i) % ring.length];
        }
        ring = bigger;
        head = 0;
      }
      ring[(head + size) % ring.length] = nowNanos;
      size++;
    }

    long size() {
      return size;
    }
  }
}
