package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import java.math.BigInteger;

/**
 * The exact arithmetic shared by {@link Gcra}, {@link TokenBucket} and {@link LeakyBucket}: ITU-T
 * I.371's virtual scheduling algorithm on a theoretical arrival time (TAT).
 *
 * <h2>Why three algorithms share one schedule</h2>
 *
 * A rate of {@code L} permits per {@code W} spaces permits {@code T = W / L} apart (the emission
 * interval). A key's whole state is the TAT: the instant at which its admitted permits would have
 * been spent had they been spaced exactly {@code T} apart. The key's <em>debt</em> is {@code
 * max(TAT - now, 0)}; it drains one nanosecond per nanosecond. A request for {@code p} permits adds
 * {@code p × T} of debt, and is admitted iff the debt stays within a tolerance of {@code slots ×
 * T}:
 *
 * <pre>
 *   debt  = max(TAT, now) - now
 *   allow iff  debt + p·T ≤ slots·T            then TAT' = max(TAT, now) + p·T
 * </pre>
 *
 * That is GCRA with {@code slots = burst + 1}. It is also a token bucket of capacity {@code slots}
 * ({@code tokens = slots - debt / T}: refilling one token per {@code T} is the debt draining), and
 * the meter form of a leaky bucket of {@code slots} (the debt is the queue, {@code debt / T}
 * permits long). The three classes differ only in {@code slots} and in what they report; this class
 * holds the arithmetic once so that it is proven once.
 *
 * <h2>Exact to the nanosecond, with no rate rounded to zero</h2>
 *
 * {@code T = W / L} is rarely a whole number of nanoseconds (7 per second: 142,857,142.857 ns).
 * Truncating it, as redis-cell does, admits slightly faster than {@code L} per {@code W} (at 1.9 ns
 * per permit almost twice as fast); rounding up admits slower. Instead every span is an exact
 * rational {@code nanos + fraction / L} with {@code 0 ≤ fraction < L}: the TAT is stored as two
 * longs, and {@code k × T = k·(W div L) + (k·(W mod L)) / L}. With {@code L ≤ 1e9} every product
 * fits in 64 bits ({@code k·(W mod L) < 2e9 · 1e9}), so no 128-bit arithmetic is needed on the hot
 * path, and {@code n} single permits move the TAT exactly as far as one request for {@code n}.
 * {@code Policy} guarantees {@code T >= 1 ns} and a tolerance of at most a century, so TATs stay
 * far from overflow; the additions saturate anyway.
 *
 * <h2>Allocation</h2>
 *
 * Spans are small immutable values. A decision builds at most the debt and the debt after (plus
 * {@code p × T} for {@code p > 1}, and a couple more on a denial); the emission interval is built
 * once, and {@code remaining}'s search compares {@code k × T} with a span in two longs instead of
 * building it. With escape analysis off that is 134 bytes per decision instead of 224; with it on
 * (C2, the default), JMH measures no allocation here at all, only the returned {@link Decision}.
 *
 * <h2>Rounding, and only at the edge</h2>
 *
 * Delays leave this class as whole nanoseconds rounded <em>up</em> ({@code retryAfter}, {@code
 * resetAfter}, {@code delay}): waiting that long is always enough, and 1 ns less is not, because
 * the exact debt drains continuously. {@code remaining} is {@code slots - ceil(debt / T)}: the
 * permits a request could take right now, never negative.
 *
 * <h2>Denied requests and the penalty</h2>
 *
 * A denied request changes nothing, unless the policy counts denials: then it adds its {@code p·T}
 * anyway, capped at {@code slots·T + W} of debt (one window of penalty beyond empty, as the window
 * algorithms' counts fall out after a window or two), so a client that keeps hammering stays
 * limited, and stops being limited at most one window after it stops.
 *
 * <h2>Giving permits back</h2>
 *
 * A plain release puts {@code p} permits back: the debt drops by {@code p·T}, to no less than zero,
 * so the key never holds more than its capacity. The schedule does not remember when its permits
 * came, so this is "tokens back in the bucket", not the undo of a particular admission.
 *
 * <p>A stamped release undoes an admission of {@code p} at {@code a}. Compare the key's debt with
 * the debt it would have without that admission: at {@code a} the difference is exactly {@code
 * p·T}; every later admission adds the same to both; draining takes the same from both until the
 * smaller one reaches zero, so the difference shrinks only while that one is idle, at most {@code
 * now - a} in all. So {@code p·T - (now - a)} is freed: exact for a return at the same instant,
 * never more than forgetting the admission would free for a later one.
 *
 * <p>One more thing shrinks the difference: the penalty cap. A penalised request adds {@code
 * min(debt + q·T, maxDebt)} (nothing at or above {@code maxDebt}), and where the key's debt is
 * capped the smaller debt may reach the same cap, leaving no difference at all. A cap since {@code
 * a} means the debt was at least {@code maxDebt} at some instant after {@code a}, so it is still at
 * least {@code maxDebt - (now - a)} now; with {@code countDenied}, a debt that high frees nothing.
 * (Without this rule: a token bucket of 10 per second, burst 10, countDenied, so {@code T = 100 ms}
 * and {@code maxDebt = 2 s}; at 0 s, 1 then 9 admitted, then 10 and 1 denied and penalised: the
 * debt is at its cap of 2 s, and it would be there without the first request too. Returning that
 * request freed 100 ms the history without it still owes.)
 *
 * <h2>State</h2>
 *
 * {@code [tatNanos, tatFraction]}: the TAT is {@code tatNanos + tatFraction / L} nanoseconds since
 * the epoch. 16 bytes.
 */
final class VirtualSchedule {
  static final int TAT_NANOS = 0;
  static final int TAT_FRACTION = 1;
  static final int STATE_SIZE = 2;

  /** {@code L}: the denominator of every fraction. */
  private final long limit;

  private final long windowNanos;
  private final long slots;
  private final boolean countDenied;

  /** {@code T = intervalNanos + intervalFraction / L}. */
  private final long intervalNanos;

  private final long intervalFraction;
  private final Span interval;
  private final Span tolerance;
  private final Span maxDebt;

  /**
   * @param limit {@code L}, permits per window
   * @param windowNanos {@code W}
   * @param slots the tolerance in emission intervals: the most permits the key holds at once
   * @param countDenied whether denied requests add their debt anyway (capped)
   */
  VirtualSchedule(long limit, long windowNanos, long slots, boolean countDenied) {
    this.limit = limit;
    this.windowNanos = windowNanos;
    this.slots = slots;
    this.countDenied = countDenied;
    this.intervalNanos = windowNanos / limit;
    this.intervalFraction = windowNanos % limit;
    this.interval = new Span(intervalNanos, intervalFraction);
    this.tolerance = times(slots);
    this.maxDebt = plus(tolerance, new Span(windowNanos, 0));
  }

  long[] newState() {
    // Long.MIN_VALUE: "long ago", so the first request sees no debt.
    return new long[] {Long.MIN_VALUE, 0};
  }

  /**
   * {@code state} if it is a schedule state, else a fresh one. A TAT stored under another limit has
   * its fraction in other units; a fraction out of range is rounded up to the next nanosecond
   * (conservative), one in range is kept (an error below one nanosecond).
   */
  long[] fit(long[] state) {
    if (state.length != STATE_SIZE) {
      return newState();
    }
    if (state[TAT_FRACTION] < 0 || state[TAT_FRACTION] >= limit) {
      state[TAT_NANOS] = NanoMath.saturatedAdd(state[TAT_NANOS], 1);
      state[TAT_FRACTION] = 0;
    }
    return state;
  }

  /**
   * The debt, rounded up: once the TAT has passed the key is fresh again. Read from the state, not
   * bounded by this policy's tolerance, since a TAT stored under a slower policy may lie further
   * ahead (see {@link #debt}).
   */
  long untilFreshNanos(long[] state, long nowNanos) {
    return ceil(debt(state, nowNanos));
  }

  /**
   * Decides {@code permits} at {@code nowNanos} (already checked against {@code slots}).
   *
   * @param reportDelay leaky bucket: tell an admitted caller how long to wait for its slot
   */
  Decision apply(long[] state, long nowNanos, long permits, boolean reportDelay) {
    Span debt = debt(state, nowNanos);
    Span cost = permits == 1 ? interval : times(permits);
    Span debtAfter = plus(debt, cost);
    if (debtAfter.compareTo(tolerance) <= 0) {
      if (permits > 0) {
        store(state, nowNanos, debtAfter);
      }
      long remaining = remaining(debtAfter);
      long resetAfter = ceil(debtAfter);
      // The request's slot starts where the queue ahead of it ends: max(TAT, now).
      return reportDelay
          ? Decision.allowAfterDelay(slots, remaining, resetAfter, ceil(debt))
          : Decision.allow(slots, remaining, resetAfter);
    }
    Span stateDebt = debt;
    if (countDenied && permits > 0 && debt.compareTo(maxDebt) < 0) {
      stateDebt = debtAfter.compareTo(maxDebt) <= 0 ? debtAfter : maxDebt;
      store(state, nowNanos, stateDebt);
    }
    // Waiting d drains d of debt: the same request fits once stateDebt - d + cost <= tolerance.
    long retryAfter = ceil(minus(plus(stateDebt, cost), tolerance));
    return Decision.deny(slots, remaining(stateDebt), retryAfter, ceil(stateDebt));
  }

  /**
   * Gives back {@code permits}: their {@code p·T} of debt leaves the schedule, and the debt never
   * goes below zero (the key never holds more than its capacity).
   */
  Decision release(long[] state, long nowNanos, long permits, boolean reportDelay) {
    Span debt = debt(state, nowNanos);
    if (permits > 0 && !debt.isZero()) {
      Span cost = times(permits);
      store(state, nowNanos, debt.compareTo(cost) > 0 ? minus(debt, cost) : Span.ZERO);
    }
    return apply(state, nowNanos, 0, reportDelay);
  }

  /**
   * Gives back {@code permits} admitted at {@code admittedAtNanos}: {@code p·T - (now -
   * admittedAt)} of debt (never below zero, never more than the debt), or nothing where a penalty
   * may have been capped since. See "Giving permits back".
   */
  Decision release(
      long[] state, long nowNanos, long permits, long admittedAtNanos, boolean reportDelay) {
    Span debt = debt(state, nowNanos);
    long since = Math.max(0, NanoMath.saturatedSubtract(nowNanos, admittedAtNanos));
    Span freed = times(permits);
    Span absorbed = new Span(since, 0);
    boolean mayHaveBeenCapped = countDenied && plus(debt, absorbed).compareTo(maxDebt) >= 0;
    if (permits > 0 && !debt.isZero() && freed.compareTo(absorbed) > 0 && !mayHaveBeenCapped) {
      freed = minus(freed, absorbed);
      store(state, nowNanos, debt.compareTo(freed) > 0 ? minus(debt, freed) : Span.ZERO);
    }
    return apply(state, nowNanos, 0, reportDelay);
  }

  /**
   * Charges a lease of {@code permits} as of its expiry {@code e = now + lifetime}: {@code TAT' =
   * max(TAT, e) + p·T}. The permits fitted at now (the caller checked), so each request the holder
   * answers before {@code e} would have been admitted by the owner too; and charging them at the
   * latest instant they can be used leaves a TAT at least as far ahead as admitting them one by one
   * at their requests would (an earlier charge would let the bucket refill during the lease from a
   * point that serial requests would have found full, and admit that refill twice).
   */
  long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    long expiresAt = NanoMath.saturatedAdd(nowNanos, lifetimeNanos);
    store(state, expiresAt, plus(debt(state, expiresAt), times(permits)));
    return expiresAt;
  }

  /**
   * The debt as permits admitted at now: {@code ceil(debt / T)} of them. A token bucket or a TAT
   * does not remember when its permits came, only how many are still outstanding; now is the latest
   * they can have come.
   */
  Admissions admissions(long[] state, long nowNanos) {
    Span debt = debt(state, nowNanos);
    if (debt.isZero()) {
      return Admissions.NONE;
    }
    // ceil((nanos·L + fraction) / W), exactly: a debt left by a slower rule may exceed the
    // tolerance, where intervalsCovering's estimate is not meant to be used.
    BigInteger[] quotient =
        BigInteger.valueOf(debt.nanos)
            .multiply(BigInteger.valueOf(limit))
            .add(BigInteger.valueOf(debt.fraction))
            .divideAndRemainder(BigInteger.valueOf(windowNanos));
    BigInteger permits = quotient[1].signum() == 0 ? quotient[0] : quotient[0].add(BigInteger.ONE);
    long count = permits.bitLength() < Long.SIZE ? permits.longValue() : Long.MAX_VALUE;
    return new Admissions.Builder().add(nowNanos, count).build();
  }

  /** A schedule that admitted every permit at its instant, each {@code T} after the one before. */
  long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    for (int i = 0; i < admissions.size(); i++) {
      long instant = Math.min(admissions.instant(i), nowNanos);
      store(state, instant, plus(debt(state, instant), anyTimes(admissions.permits(i))));
    }
    return state;
  }

  /**
   * {@code k × T} for any {@code k >= 0}, saturating: {@link #times} keeps to 64 bits only for the
   * counts a request can ask for, while a carried-over count may be far larger.
   */
  private Span anyTimes(long k) {
    if (k <= Limit.MAX_LIMIT + 1) {
      return times(k);
    }
    BigInteger[] split =
        BigInteger.valueOf(k)
            .multiply(BigInteger.valueOf(windowNanos))
            .divideAndRemainder(BigInteger.valueOf(limit));
    return split[0].bitLength() < Long.SIZE
        ? new Span(split[0].longValue(), split[1].longValue())
        : new Span(Long.MAX_VALUE, 0);
  }

  /**
   * {@code max(TAT - now, 0)}. A TAT stored under a slower policy may lie further ahead than this
   * policy could ever put it; it is kept, not clamped, because a clamped debt would stop draining
   * and no delay computed from it would be honest. Such a key simply waits its old debt out.
   */
  private Span debt(long[] state, long nowNanos) {
    long tatNanos = state[TAT_NANOS];
    if (tatNanos < nowNanos) {
      return Span.ZERO;
    }
    return new Span(NanoMath.saturatedSubtract(tatNanos, nowNanos), state[TAT_FRACTION]);
  }

  /** {@code slots - ceil(debt / T)}, at least 0. */
  private long remaining(Span debt) {
    return debt.compareTo(tolerance) >= 0 ? 0 : slots - intervalsCovering(debt);
  }

  private static void store(long[] state, long nowNanos, Span debt) {
    state[TAT_NANOS] = NanoMath.saturatedAdd(nowNanos, debt.nanos);
    state[TAT_FRACTION] = debt.fraction;
  }

  /** {@code k × T}, exactly. */
  Span times(long k) {
    return new Span(timesNanos(k), timesFraction(k));
  }

  /** The whole nanoseconds of {@code k × T}. */
  private long timesNanos(long k) {
    long fractionProduct = k * intervalFraction; // < (2e9 + 2) · 1e9: fits
    return NanoMath.saturatedAdd(
        NanoMath.saturatedMultiply(k, intervalNanos), fractionProduct / limit);
  }

  /** The fraction of {@code k × T}, in {@code 1 / L} ns. */
  private long timesFraction(long k) {
    return k * intervalFraction % limit;
  }

  /**
   * {@code ceil(span / T)} for {@code span <= tolerance}: how many emission intervals cover {@code
   * span}. A double estimates it (relative error 1e-16 on an answer at most {@code slots <= 1e9 +
   * 1}, so off by at most one), exact span comparisons then settle it.
   */
  long intervalsCovering(Span span) {
    if (span.isZero()) {
      return 0;
    }
    double estimate =
        ((double) span.nanos * limit + span.fraction) / (double) windowNanos; // (n·L + f) / W
    long k = Math.max(0, (long) Math.ceil(estimate));
    while (compareTimes(k, span) < 0) {
      k++;
    }
    while (k > 0 && compareTimes(k - 1, span) >= 0) {
      k--;
    }
    return k;
  }

  /**
   * {@code times(k).compareTo(span)}, without building {@code k × T}: this runs on every decision
   * (for {@code remaining}), so it stays in two longs.
   */
  private int compareTimes(long k, Span span) {
    int byNanos = Long.compare(timesNanos(k), span.nanos);
    return byNanos != 0 ? byNanos : Long.compare(timesFraction(k), span.fraction);
  }

  private Span plus(Span a, Span b) {
    long nanos = NanoMath.saturatedAdd(a.nanos, b.nanos);
    long fraction = a.fraction + b.fraction;
    if (fraction >= limit) {
      fraction -= limit;
      nanos = NanoMath.saturatedAdd(nanos, 1);
    }
    return new Span(nanos, fraction);
  }

  /** {@code a - b} for {@code a > b}. */
  private Span minus(Span a, Span b) {
    long nanos = a.nanos - b.nanos;
    long fraction = a.fraction - b.fraction;
    if (fraction < 0) {
      fraction += limit;
      nanos--;
    }
    return new Span(nanos, fraction);
  }

  /** Whole nanoseconds, rounded up: waiting this long is always enough. */
  private static long ceil(Span span) {
    return span.fraction > 0 ? NanoMath.saturatedAdd(span.nanos, 1) : span.nanos;
  }

  /** A non-negative span of {@code nanos + fraction / L} nanoseconds, {@code 0 <= fraction < L}. */
  record Span(long nanos, long fraction) implements Comparable<Span> {
    static final Span ZERO = new Span(0, 0);

    boolean isZero() {
      return nanos == 0 && fraction == 0;
    }

    @Override
    public int compareTo(Span other) {
      int byNanos = Long.compare(nanos, other.nanos);
      return byNanos != 0 ? byNanos : Long.compare(fraction, other.fraction);
    }
  }
}
