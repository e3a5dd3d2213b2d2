package dev.sluice.bench.lease;

import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges every admission of a simulated run against what the rule allows a key, from the instants
 * the requests were admitted at (where they were decided: the owner, or a holder answering from a
 * lease), independently of the code that decided them. The bounds are those of the contract suite's
 * {@code AdmissionBounds}, exact here because the virtual clock knows each decision's instant:
 *
 * <ul>
 *   <li>fixed_window: at most {@code L} in each epoch-aligned window;
 *   <li>sliding_window: at each admission, {@code floor(P × (W − e) / W) + C ≤ L}, with {@code C}
 *       the admissions of the current window so far (this one included), {@code P} those of the
 *       window before and {@code e} the elapsed part of the current one;
 *   <li>sliding_log, sliding_buckets: at most {@code L} in any interval of length {@code W};
 *   <li>token_bucket, gcra, leaky_bucket: at most {@code capacity + d × L / W} in any interval of
 *       length {@code d} (a bucket of the capacity, full at first, refilled at the rate, that every
 *       admission must find a permit in).
 * </ul>
 *
 * Several limits: each is judged on its own. An admission beyond a bound is counted and then left
 * out of the counts, so the figure is the admissions that must be taken away for the rest to fit.
 */
final class AdmissionJudge {
  private final List<Limit> limits;
  private final long[] capacities;
  private final Map<String, Object[]> keys = new HashMap<>();
  private long over;

  AdmissionJudge(Policy policy) {
    this.limits = policy.limits();
    this.capacities = new long[limits.size()];
    for (int i = 0; i < limits.size(); i++) {
      capacities[i] = LimiterAlgorithm.of(new Policy(limits.get(i))).capacity();
    }
  }

  /** Admissions beyond the bound so far. */
  long overAdmitted() {
    return over;
  }

  /** Judges {@code permits} admitted on {@code key} at {@code atNanos} (epoch nanoseconds). */
  void admitted(String key, long atNanos, long permits) {
    Object[] states = keys.computeIfAbsent(key, k -> new Object[limits.size()]);
    boolean fits = true;
    for (int i = 0; i < limits.size(); i++) {
      if (states[i] == null) {
        states[i] = newState(limits.get(i), capacities[i], atNanos);
      }
      fits &= ((Bound) states[i]).fits(atNanos, permits);
    }
    if (!fits) {
      over += permits;
      return;
    }
    for (Object state : states) {
      ((Bound) state).count(atNanos, permits);
    }
  }

  private static Bound newState(Limit limit, long capacity, long atNanos) {
    return switch (limit.algorithm()) {
      case FIXED_WINDOW -> new FixedWindowBound(limit.limit(), limit.windowNanos());
      case SLIDING_WINDOW -> new SlidingWindowBound(limit.limit(), limit.windowNanos());
      case SLIDING_LOG, SLIDING_BUCKETS -> new AnyWindowBound(limit.limit(), limit.windowNanos());
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET ->
          new RateBound(limit.limit(), limit.windowNanos(), capacity, atNanos);
      case CONCURRENCY -> throw new IllegalArgumentException("concurrency rules are not leased");
    };
  }

  /** One key's admissions under one limit. */
  private interface Bound {
    boolean fits(long atNanos, long permits);

    void count(long atNanos, long permits);
  }

  private static final class FixedWindowBound implements Bound {
    private final long limit;
    private final long windowNanos;
    private long window = Long.MIN_VALUE;
    private long count;

    FixedWindowBound(long limit, long windowNanos) {
      this.limit = limit;
      this.windowNanos = windowNanos;
    }

    private void roll(long atNanos) {
      long now = Math.floorDiv(atNanos, windowNanos);
      if (now != window) {
        window = now;
        count = 0;
      }
    }

    @Override
    public boolean fits(long atNanos, long permits) {
      roll(atNanos);
      return count + permits <= limit;
    }

    @Override
    public void count(long atNanos, long permits) {
      roll(atNanos);
      count += permits;
    }
  }

  private static final class SlidingWindowBound implements Bound {
    private final long limit;
    private final long windowNanos;
    private long window = Long.MIN_VALUE;
    private long current;
    private long previous;

    SlidingWindowBound(long limit, long windowNanos) {
      this.limit = limit;
      this.windowNanos = windowNanos;
    }

    private void roll(long atNanos) {
      long now = Math.floorDiv(atNanos, windowNanos);
      if (now != window) {
        previous = now == window + 1 ? current : 0;
        current = 0;
        window = now;
      }
    }

    @Override
    public boolean fits(long atNanos, long permits) {
      roll(atNanos);
      long elapsed = atNanos - window * windowNanos;
      long share = Math.multiplyExact(previous, windowNanos - elapsed) / windowNanos;
      return share + current + permits <= limit;
    }

    @Override
    public void count(long atNanos, long permits) {
      roll(atNanos);
      current += permits;
    }
  }

  private static final class AnyWindowBound implements Bound {
    private final long limit;
    private final long windowNanos;

    /** Admission instants within the last window, oldest first, one entry per permit. */
    private final ArrayDeque<Long> recent = new ArrayDeque<>();

    AnyWindowBound(long limit, long windowNanos) {
      this.limit = limit;
      this.windowNanos = windowNanos;
    }

    @Override
    public boolean fits(long atNanos, long permits) {
      while (!recent.isEmpty() && recent.peekFirst() <= atNanos - windowNanos) {
        recent.pollFirst();
      }
      return recent.size() + permits <= limit;
    }

    @Override
    public void count(long atNanos, long permits) {
      for (long i = 0; i < permits; i++) {
        recent.addLast(atNanos);
      }
    }
  }

  /**
   * A bucket of {@code capacity} permits, full at the key's first admission, refilled at {@code
   * limit} per {@code windowNanos}: tokens are kept in units of {@code 1 / windowNanos} of a
   * permit, so the refill is exact.
   */
  private static final class RateBound implements Bound {
    private final long limit;
    private final long windowNanos;
    private final long full;
    private long tokens;
    private long at;

    RateBound(long limit, long windowNanos, long capacity, long atNanos) {
      this.limit = limit;
      this.windowNanos = windowNanos;
      this.full = Math.multiplyExact(capacity, windowNanos);
      this.tokens = full;
      this.at = atNanos;
    }

    private void refill(long atNanos) {
      long elapsed = atNanos - at;
      if (elapsed > 0) {
        long added =
            elapsed >= full / Math.max(1, limit) + 1 ? full : Math.multiplyExact(elapsed, limit);
        tokens = Math.min(full, tokens + added);
        at = atNanos;
      }
    }

    @Override
    public boolean fits(long atNanos, long permits) {
      refill(atNanos);
      return tokens >= Math.multiplyExact(permits, windowNanos);
    }

    @Override
    public void count(long atNanos, long permits) {
      refill(atNanos);
      tokens -= permits * windowNanos;
    }
  }
}
