package dev.sluice.client;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import java.time.Duration;
import java.time.Instant;

/** Limiters for tests outside this package. */
public final class TestLimiters {
  private TestLimiters() {}

  /** A real in-JVM limiter with the rule {@code login}: 5 per minute, on a frozen clock. */
  public static RateLimiter loginFivePerMinute() {
    return new ReferenceLimiter(ManualTimeSource.at(Instant.parse("2026-01-01T00:00:10Z")))
        .withRule("login", Policy.of(5, Duration.ofMinutes(1)));
  }
}
