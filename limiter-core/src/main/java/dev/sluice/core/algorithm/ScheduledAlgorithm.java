package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;

/**
 * What the three rate algorithms share. Gcra, the token bucket and the leaky bucket are one {@link
 * VirtualSchedule} (a theoretical arrival time advanced by {@code T = W / L} per permit) that
 * differ only in how many permits it may run ahead of now (their capacity) and in whether an
 * admitted request is told a delay to wait (shaping). Each subclass keeps its rule, worked example
 * and trade-offs in its own header.
 */
abstract class ScheduledAlgorithm implements LimiterAlgorithm {
  private final VirtualSchedule schedule;
  private final long capacity;
  private final boolean shaping;

  ScheduledAlgorithm(Policy policy, long capacity, boolean shaping) {
    this.capacity = capacity;
    this.shaping = shaping;
    this.schedule =
        new VirtualSchedule(policy.limit(), policy.windowNanos(), capacity, policy.countDenied());
  }

  @Override
  public final long[] newState() {
    return schedule.newState();
  }

  @Override
  public final long[] fit(long[] state) {
    return schedule.fit(state);
  }

  @Override
  public final Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, capacity);
    return schedule.apply(state, nowNanos, permits, shaping);
  }

  @Override
  public final long capacity() {
    return capacity;
  }

  @Override
  public final long untilFreshNanos(long[] state, long nowNanos) {
    return schedule.untilFreshNanos(state, nowNanos);
  }
}
