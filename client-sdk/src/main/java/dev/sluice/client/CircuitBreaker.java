package dev.sluice.client;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Keeps a dead grid from costing the call timeout on every call.
 *
 * <pre>
 *   closed ──failure──▶ open (until now + probeInterval) ──interval over──▶ one probe
 *     ▲                    ▲                                                  │
 *     └──────success───────┼──────────────────────────────────────────────────┤
 *                          └────────────────failure───────────────────────────┘
 * </pre>
 *
 * While open, every call is decided locally at once by the failure policy. When the interval is
 * over, exactly one caller wins a compare-and-set and goes to the grid as the probe; the others
 * stay local (the winner pushed {@code openUntil} one interval further). So a dead grid costs the
 * timeout once per probe interval, and a grid that is back is used again within one interval, with
 * no restart.
 *
 * <p>Calls already in flight when the grid dies each pay their timeout once; that is the price of
 * not serializing every call through the breaker.
 */
final class CircuitBreaker {
  /** {@code 0} means closed; otherwise the monotonic time until which calls stay local. */
  private final AtomicLong openUntilNanos = new AtomicLong();

  private final long probeIntervalNanos;
  private final LongSupplier nanoClock;

  CircuitBreaker(long probeIntervalNanos, LongSupplier nanoClock) {
    this.probeIntervalNanos = probeIntervalNanos;
    this.nanoClock = nanoClock;
  }

  /** Whether this call may go to the grid: the breaker is closed, or this call is the probe. */
  boolean tryPass() {
    long until = openUntilNanos.get();
    if (until == 0) {
      return true;
    }
    long now = nanoClock.getAsLong();
    return now - until >= 0
        && openUntilNanos.compareAndSet(until, nonZero(now + probeIntervalNanos));
  }

  void onSuccess() {
    if (openUntilNanos.get() != 0) {
      openUntilNanos.set(0);
    }
  }

  void onFailure() {
    openUntilNanos.set(nonZero(nanoClock.getAsLong() + probeIntervalNanos));
  }

  boolean isOpen() {
    return openUntilNanos.get() != 0;
  }

  /** How long until the next probe may go out: the retry-after of a fail-closed answer. */
  long nanosUntilProbe() {
    long until = openUntilNanos.get();
    return until == 0 ? probeIntervalNanos : Math.max(1, until - nanoClock.getAsLong());
  }

  private static long nonZero(long nanos) {
    return nanos == 0 ? 1 : nanos;
  }
}
