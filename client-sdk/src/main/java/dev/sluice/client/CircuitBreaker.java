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
 * <h2>A failure the grid has already outlived</h2>
 *
 * Each call that goes to the grid takes a ticket, in the order the calls leave. A failure opens the
 * breaker only if no call that left after it has been answered: a later answer proves the grid was
 * up after this call left, so the call met a slow partition (one moving to a member that just
 * joined waits Hazelcast's retry pause, 500 ms, or its backup timeout, 5 s), not a dead grid, and
 * its own failure policy answer is enough. A dead grid answers no later call, so its first failure
 * still opens the breaker; a caller alone (nothing later in flight) sees no difference.
 *
 * <p>Calls already in flight when the grid dies each pay their timeout once; that is the price of
 * not serializing every call through the breaker.
 */
final class CircuitBreaker {
  /** What {@link #tryPass} answers when the call must stay local. */
  static final long REFUSED = 0;

  /** {@code 0} means closed; otherwise the monotonic time until which calls stay local. */
  private final AtomicLong openUntilNanos = new AtomicLong();

  /** The last ticket handed out; tickets start at 1 and grow with every call to the grid. */
  private final AtomicLong tickets = new AtomicLong();

  /** The highest ticket of a call the grid answered. */
  private final AtomicLong lastAnswered = new AtomicLong();

  private final long probeIntervalNanos;
  private final LongSupplier nanoClock;

  CircuitBreaker(long probeIntervalNanos, LongSupplier nanoClock) {
    this.probeIntervalNanos = probeIntervalNanos;
    this.nanoClock = nanoClock;
  }

  /**
   * The ticket of a call that may go to the grid (the breaker is closed, or this call is the
   * probe), or {@link #REFUSED}.
   */
  long tryPass() {
    long until = openUntilNanos.get();
    if (until == 0) {
      return tickets.incrementAndGet();
    }
    long now = nanoClock.getAsLong();
    boolean probe =
        now - until >= 0 && openUntilNanos.compareAndSet(until, nonZero(now + probeIntervalNanos));
    return probe ? tickets.incrementAndGet() : REFUSED;
  }

  /** The ticket of a call that goes to the grid whatever the breaker says. */
  long ticket() {
    return tickets.incrementAndGet();
  }

  /** The grid answered the call of {@code ticket}: it is up. */
  void onSuccess(long ticket) {
    lastAnswered.accumulateAndGet(ticket, Math::max);
    if (openUntilNanos.get() != 0) {
      openUntilNanos.set(0);
    }
  }

  /**
   * The call of {@code ticket} failed: the breaker opens, unless a call that left after it was
   * answered (the grid is up; this call met a slow partition).
   */
  void onFailure(long ticket) {
    if (lastAnswered.get() <= ticket) {
      open();
    }
  }

  /** Opens the breaker for one probe interval: a failure of a call that took no ticket. */
  void open() {
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
