package dev.sluice.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to: for tests and simulations. Thread-safe. */
public final class ManualTimeSource implements TimeSource {
  private final AtomicLong nowNanos;

  public ManualTimeSource(long startNanos) {
    this.nowNanos = new AtomicLong(startNanos);
  }

  /** A clock at {@code instant}. */
  public static ManualTimeSource at(Instant instant) {
    return new ManualTimeSource(instant.getEpochSecond() * 1_000_000_000L + instant.getNano());
  }

  @Override
  public long nowNanos() {
    return nowNanos.get();
  }

  public void advance(Duration duration) {
    nowNanos.addAndGet(duration.toNanos());
  }

  public void advanceNanos(long nanos) {
    nowNanos.addAndGet(nanos);
  }

  public void set(long epochNanos) {
    nowNanos.set(epochNanos);
  }
}
