package dev.sluice.core.lease;

import java.util.concurrent.atomic.LongAdder;

/**
 * What every lease policy keeps of one key: its requests second by second, the requests a lease
 * answered since they were last counted, and whether an ask for a lease of it is on its way. A
 * policy's key adds what its own rule needs ({@link LeaseDemand.Heat}'s intervals). Every method is
 * called holding the key's monitor, but {@link #answeredLocally}'s adder.
 */
abstract class KeyCounts implements LeasePolicy.Key {
  static final long SECOND_NANOS = 1_000_000_000L;

  /**
   * An ask whose answer has not come back for this long (a timeout lost it) no longer blocks the
   * next.
   */
  static final long ASK_TIMEOUT_NANOS = 100_000_000L;

  /**
   * Requests a lease answered since the key was last counted: they never reach the policy's {@code
   * wanted}, yet they are the key's rate, and without them a key answered from leases would look
   * cold when its lease runs out. An adder, not the monitor: lease answers on one hot key come from
   * many threads at once.
   */
  final LongAdder answeredLocally = new LongAdder();

  /** Since when the key's seconds have followed each other without a gap of a second. */
  long countingSince;

  long secondStart;
  int thisSecond;
  int lastSecond;
  private boolean asking;
  private long askedAt;

  /**
   * Counts {@code requests} in the second at {@code now}, starting a new one when the last is over.
   * Seconds follow each other without gaps, so that the last second is the one just before this one
   * and the weight in {@link #perSecond} is its share that still lies within a second of now.
   */
  final void countSecond(long now, long requests) {
    long intoSecond = now - secondStart;
    if (intoSecond >= 2 * SECOND_NANOS || intoSecond < 0) {
      lastSecond = 0;
      thisSecond = 0;
      secondStart = now;
      countingSince = now;
    } else if (intoSecond >= SECOND_NANOS) {
      lastSecond = thisSecond;
      thisSecond = 0;
      secondStart += SECOND_NANOS;
    }
    thisSecond = (int) Math.min(Integer.MAX_VALUE, thisSecond + requests);
  }

  /**
   * The requests of the last second at {@code now}, after {@link #countSecond}, estimated as the
   * sliding window counter estimates: this second's count, plus the last second's weighted by the
   * share of it that still lies within one second of {@code now}.
   */
  final long perSecond(long now) {
    long intoSecond = Math.min(SECOND_NANOS, Math.max(0, now - secondStart));
    return thisSecond + (long) (lastSecond * ((SECOND_NANOS - intoSecond) / (double) SECOND_NANOS));
  }

  /** Whether an ask sent less than {@link #ASK_TIMEOUT_NANOS} ago has not come back. */
  final boolean askPendingAt(long now) {
    return asking && now - askedAt < ASK_TIMEOUT_NANOS;
  }

  /** An ask for a lease of the key leaves at {@code now}; {@link #askEnded} ends it. */
  final void askStarted(long now) {
    asking = true;
    askedAt = now;
  }

  @Override
  public final synchronized void askEnded() {
    asking = false;
  }

  /**
   * Whether nothing was counted on this key for two seconds, and no ask is on its way: its next
   * count would start from nothing, as a new key's does.
   */
  final synchronized boolean idleAt(long now) {
    return now - secondStart >= 2 * SECOND_NANOS && !askPendingAt(now);
  }
}
