package dev.sluice.core;

import java.time.Instant;

/**
 * Where {@code now} comes from. In the grid it is always the owning member's source, never the
 * caller's, so that every decision on a key reads one clock. Tests inject a {@link
 * ManualTimeSource} and move it; nothing sleeps to make time pass.
 */
@FunctionalInterface
public interface TimeSource {

  /** Nanoseconds since the Unix epoch; windows are aligned to it. */
  long nowNanos();

  /** The system clock, at the best precision the platform gives (microseconds on Linux). */
  static TimeSource system() {
    return SystemTimeSource.INSTANCE;
  }

  /** The system clock. */
  enum SystemTimeSource implements TimeSource {
    INSTANCE;

    @Override
    public long nowNanos() {
      Instant now = Instant.now();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
  }
}
