package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;

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

  ScheduledAlgorithm(Limit spec, boolean countDenied, long capacity, boolean shaping) {
    this.capacity = capacity;
    this.shaping = shaping;
    this.schedule = new VirtualSchedule(spec.limit(), spec.windowNanos(), capacity, countDenied);
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
  public final Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, capacity);
    return schedule.release(state, nowNanos, permits, shaping);
  }

  @Override
  public final Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, capacity);
    return schedule.release(state, nowNanos, permits, admittedAtNanos, shaping);
  }

  /** The leaky bucket shapes, telling each caller its delay: it does not lease. */
  @Override
  public final long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    return shaping ? nowNanos : schedule.lease(state, nowNanos, permits, lifetimeNanos);
  }

  @Override
  public final Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    Permits.check(permits, capacity);
    return schedule.release(
        state, nowNanos, permits, NanoMath.saturatedAdd(grantedAtNanos, lifetimeNanos), shaping);
  }

  @Override
  public final Admissions admissions(long[] state, long nowNanos) {
    return schedule.admissions(state, nowNanos);
  }

  @Override
  public final long[] fromAdmissions(Admissions admissions, long nowNanos) {
    return schedule.fromAdmissions(admissions, nowNanos);
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
