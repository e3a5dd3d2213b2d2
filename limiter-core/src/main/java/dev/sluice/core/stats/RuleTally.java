package dev.sluice.core.stats;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import java.util.concurrent.atomic.LongAdder;

/**
 * One rule's decision counters on one node, bumped by the deciding threads ({@link #record}) and
 * read as per-second differences by the node's tick. A denial (or a shadow rule's would-be denial)
 * also goes to the sketch of limited keys.
 */
public final class RuleTally {
  private final String rule;
  private final LimitedKeys limitedKeys;
  private final LongAdder allowed = new LongAdder();
  private final LongAdder denied = new LongAdder();
  private final LongAdder shadowDenied = new LongAdder();
  private final LongAdder timed = new LongAdder();
  private final LongAdder timedNanos = new LongAdder();

  // Owned by the tick: the sums it last read.
  private long lastAllowed;
  private long lastDenied;
  private long lastShadowDenied;
  private long lastTimed;
  private long lastTimedNanos;

  RuleTally(String rule, LimitedKeys limitedKeys) {
    this.rule = rule;
    this.limitedKeys = limitedKeys;
  }

  /** Counts one decision of {@code check}; on the decision path. */
  public void record(Check check, Decision decision) {
    if (decision.shadowDenied()) {
      shadowDenied.increment();
      limitedKeys.denied(check);
    } else if (decision.allowed()) {
      allowed.increment();
    } else {
      denied.increment();
      limitedKeys.denied(check);
    }
  }

  /** Records how long one of the rule's single checks took at its key's owner. */
  public void recordLatency(long nanos) {
    timed.increment();
    timedNanos.add(Math.max(0, nanos));
  }

  String rule() {
    return rule;
  }

  /**
   * The decisions since the previous call: {@code [allowed, denied, shadowDenied, timed,
   * meanMicros]}.
   */
  int[] drainSecond() {
    long a = allowed.sum();
    long d = denied.sum();
    long s = shadowDenied.sum();
    long t = timed.sum();
    long nanos = timedNanos.sum();
    long count = t - lastTimed;
    long mean = count == 0 ? 0 : ((nanos - lastTimedNanos) / count + 999) / 1000;
    int[] second = {
      clamp(a - lastAllowed),
      clamp(d - lastDenied),
      clamp(s - lastShadowDenied),
      clamp(count),
      clamp(mean)
    };
    lastAllowed = a;
    lastDenied = d;
    lastShadowDenied = s;
    lastTimed = t;
    lastTimedNanos = nanos;
    return second;
  }

  private static int clamp(long value) {
    return (int) Math.min(Integer.MAX_VALUE, value);
  }
}
