package dev.sluice.core.lease;

import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.LeaseAsk;
import dev.sluice.core.decision.LeaseTuning;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
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
  private static final long SECOND_NANOS = 1_000_000_000L;

  /** An ask whose answer has not come back for this long no longer blocks the next. */
  private static final long ASK_TIMEOUT_NANOS = 100_000_000L;

  private final LeaseTuning tuning;
  private final Predicate<String> leased;
  private final ConcurrentHashMap<String, Rate> rates = new ConcurrentHashMap<>();
  private final AtomicBoolean forgetting = new AtomicBoolean();

  RateLeasePolicy(LeaseTuning tuning, Predicate<String> leased) {
    this.tuning = tuning;
    this.leased = leased;
  }

  /** One key's rate, and whether an ask for a lease of it is on its way. */
  static final class Rate implements LeasePolicy.Key {
    /** Since when the key's seconds have followed each other without a gap of a second. */
    private long countingSince;

    private long secondStart;
    private long thisSecond;
    private long lastSecond;
    private boolean asking;
    private long askedAt;
    private final LongAdder answeredLocally = new LongAdder();

    /**
     * Counts {@code requests} at {@code now}, with the lease answers since the last count. Holding
     * the monitor.
     */
    private void count(long now, long requests) {
      long into = now - secondStart;
      if (into >= 2 * SECOND_NANOS || into < 0) {
        lastSecond = 0;
        thisSecond = 0;
        secondStart = now;
        countingSince = now;
      } else if (into >= SECOND_NANOS) {
        lastSecond = thisSecond;
        thisSecond = 0;
        secondStart += SECOND_NANOS;
      }
      thisSecond += requests + answeredLocally.sumThenReset();
    }

    /**
     * The key's requests a second at {@code now}, after {@link #count}: over the last second once
     * it has been counted for a second (this second's count plus the last second's weighted by the
     * share of it still within a second of now); before that, its count so far as a second's worth,
     * unless it reached {@code burst} requests, a rate then (over 100 ms at least). Holding the
     * monitor.
     */
    private long perSecond(long now, long burst) {
      long counted = now - countingSince;
      if (counted >= SECOND_NANOS) {
        long left = SECOND_NANOS - (now - secondStart);
        return thisSecond + (long) (lastSecond * (left / (double) SECOND_NANOS));
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

    private boolean askPendingAt(long now) {
      return asking && now - askedAt < ASK_TIMEOUT_NANOS;
    }

    private synchronized boolean idleAt(long now) {
      return now - secondStart >= 2 * SECOND_NANOS && !askPendingAt(now);
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
      asking = true;
      askedAt = nowNanos;
      count(nowNanos, 0);
      return new LeaseAsk(
          Math.max(1, perSecond(nowNanos, Long.MAX_VALUE)) * Math.max(1, permitsPerRequest),
          LeaseAsk.OWNER_CHOOSES);
    }

    @Override
    public synchronized void askEnded() {
      asking = false;
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
    if (rates.size() > tuning.maxTrackedKeys()) {
      forgetIdleKeys(nowNanos);
    }
    Rate rate = rates.computeIfAbsent(stateKey, key -> new Rate());
    synchronized (rate) {
      rate.count(nowNanos, 1);
      if (permits == 0 || closing || rate.askPendingAt(nowNanos)) {
        return LeaseAsk.NONE;
      }
      long burst = tuning.shortLeaseAnswers();
      long perSecond = rate.perSecond(nowNanos, burst);
      if (!worthAsking(
          perSecond, rate.trusted(nowNanos, burst), windowLeaseNanos, shortLeaseNanos)) {
        return LeaseAsk.NONE;
      }
      rate.asking = true;
      rate.askedAt = nowNanos;
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
    for (Rate rate : rates.values()) {
      synchronized (rate) {
        if (rate.askPendingAt(nowNanos)) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public int keysTracked() {
    return rates.size();
  }

  private void forgetIdleKeys(long now) {
    if (!forgetting.compareAndSet(false, true)) {
      return;
    }
    try {
      rates.entrySet().removeIf(e -> e.getValue().idleAt(now) && !leased.test(e.getKey()));
      if (rates.size() > tuning.maxTrackedKeys() / 4 * 3) {
        rates.clear();
      }
    } finally {
      forgetting.set(false);
    }
  }
}
