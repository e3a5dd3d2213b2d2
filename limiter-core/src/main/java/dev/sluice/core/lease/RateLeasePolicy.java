package dev.sluice.core.lease;

import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.LeaseAsk;
import dev.sluice.core.decision.LeaseTuning;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One rate per key, and the owner chooses the lease: a holder counts the requests of each key over
 * the last second, and asks along with a request when that rate expects at least {@link
 * LeaseTuning#minExpectedAnswers} requests within the lease the key's policy would grant (to the
 * end of its window, at most {@link LeaseTuning#horizonNanos}, on a window algorithm; the short
 * lifetime otherwise). The ask is the rate itself; the owner decides which lease answers it and how
 * big ({@link KeyDecision}): to the end of the window where the algorithm allows one and the key
 * has room, else short, else paced at its limit.
 *
 * <h2>The rate</h2>
 *
 * As the sliding window counter estimates: this second's requests plus the last second's weighted
 * by the share of it still within a second of now. Requests a lease answered count too (an adder: a
 * hot key's answers come from many threads at once), or a key answered from leases would look cold
 * when its lease runs out. A key's first request counts as a rate of one a second: on a window of a
 * second that already expects an answer, so a key asked about once or twice a second has its later
 * requests of the window answered here.
 *
 * <h2>Memory</h2>
 *
 * At most about {@link LeaseTuning#maxTrackedKeys} keys are tracked; beyond it the keys idle for
 * two seconds are forgotten, and all of them if that leaves more than three quarters. Thread-safe.
 */
public final class RateLeasePolicy implements LeasePolicy {
  private final LeaseTuning tuning;
  private final KeyTable<Rate> rates;

  RateLeasePolicy(LeaseTuning tuning, Predicate<String> leased) {
    this.tuning = tuning;
    this.rates = new KeyTable<>(tuning.maxTrackedKeys(), leased, Rate::new);
  }

  /** One key's rate, and whether an ask for a lease of it is on its way. */
  static final class Rate extends KeyCounts {
    /**
     * Counts {@code requests} at {@code now}, with the lease answers since the last count. Holding
     * the monitor.
     */
    private void count(long now, long requests) {
      countSecond(now, requests + answeredLocally.sumThenReset());
    }

    /**
     * The key's requests a second at {@code now}, after {@link #count}: over the last second once
     * it has been counted for a second ({@link #perSecond(long)}); before that, its count so far as
     * a second's worth, unless it reached {@code burst} requests, a rate then (over 100 ms at
     * least). Holding the monitor.
     */
    private long rate(long now, long burst) {
      long counted = now - countingSince;
      if (counted >= SECOND_NANOS) {
        return perSecond(now);
      }
      if (thisSecond < burst) {
        return thisSecond;
      }
      return (long) (thisSecond * (SECOND_NANOS / (double) Math.max(counted, SECOND_NANOS / 10)));
    }

    /** Whether the rate is judged on a whole second, or on a burst of {@code burst} requests. */
    private boolean trusted(long now, long burst) {
      return now - countingSince >= SECOND_NANOS || thisSecond >= burst;
    }

    @Override
    public void answeredLocally(long nowNanos, boolean endsWithItsWindow) {
      answeredLocally.increment();
    }

    @Override
    public synchronized LeaseAsk renewal(long nowNanos, long permitsPerRequest) {
      if (askPendingAt(nowNanos)) {
        return LeaseAsk.NONE;
      }
      askStarted(nowNanos);
      count(nowNanos, 0);
      return new LeaseAsk(
          Math.max(1, rate(nowNanos, Long.MAX_VALUE)) * Math.max(1, permitsPerRequest),
          LeaseAsk.OWNER_CHOOSES);
    }
  }

  @Override
  public LeaseAsk wanted(
      String stateKey,
      long permits,
      long nowNanos,
      boolean closing,
      long windowLeaseNanos,
      long shortLeaseNanos) {
    Rate rate = rates.track(stateKey, nowNanos);
    synchronized (rate) {
      rate.count(nowNanos, 1);
      if (permits == 0 || closing || rate.askPendingAt(nowNanos)) {
        return LeaseAsk.NONE;
      }
      long burst = tuning.shortLeaseAnswers();
      long perSecond = rate.rate(nowNanos, burst);
      if (!worthAsking(
          perSecond, rate.trusted(nowNanos, burst), windowLeaseNanos, shortLeaseNanos)) {
        return LeaseAsk.NONE;
      }
      rate.askStarted(nowNanos);
      return new LeaseAsk(perSecond * Math.max(1, permits), LeaseAsk.OWNER_CHOOSES);
    }
  }

  /**
   * Whether a lease is expected to answer enough requests to be worth asking for: one that ends
   * with its window of at most the horizon unused costs nothing more, so one answer pays; one that
   * is sent back unused (a short lease, or one to the end of a longer window, after a horizon idle)
   * costs a return, so it must be expected to answer more, on a rate judged over a second or a
   * burst (two requests that happen to meet say nothing).
   */
  private boolean worthAsking(
      long perSecond, boolean trusted, long windowLeaseNanos, long shortLeaseNanos) {
    if (windowLeaseNanos > 0 && windowLeaseNanos <= tuning.horizonNanos()) {
      return LeaseTuning.expected(perSecond, windowLeaseNanos) >= tuning.minExpectedAnswers();
    }
    if (windowLeaseNanos > 0) {
      return trusted
          && LeaseTuning.expected(perSecond, tuning.horizonNanos())
              >= tuning.minAnswersPerHorizon();
    }
    return trusted
        && LeaseTuning.expected(perSecond, shortLeaseNanos) >= tuning.minAnswersIfReturned();
  }

  @Override
  public @Nullable Rate key(String stateKey) {
    return rates.get(stateKey);
  }

  @Override
  public boolean asking(long nowNanos) {
    return rates.asking(nowNanos);
  }

  @Override
  public int keysTracked() {
    return rates.size();
  }
}
