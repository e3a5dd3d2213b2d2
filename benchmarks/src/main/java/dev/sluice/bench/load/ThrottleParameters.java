package dev.sluice.bench.load;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The parameters of {@code CL.THROTTLE key max_burst count_per_period period} (and of the Lua
 * script that does the same on Redis), and the policy they stand for, which every admission is
 * judged against: gcra {@code count_per_period} per {@code period} seconds with a burst of {@code
 * max_burst}.
 */
record ThrottleParameters(long maxBurst, long perPeriod, long periodSeconds) {

  /** The arguments after the key, as text. */
  List<String> arguments() {
    return List.of(Long.toString(maxBurst), Long.toString(perPeriod), Long.toString(periodSeconds));
  }

  Policy policy() {
    return Policy.builder()
        .algorithm(Algorithm.GCRA)
        .limit(perPeriod)
        .window(Duration.ofSeconds(periodSeconds))
        .burst(maxBurst)
        .build();
  }

  /** The policy in words: {@code gcra 200 per 1 s, burst 9}. */
  String describe() {
    return String.format(
        Locale.ROOT, "gcra %,d per %d s, burst %d", perPeriod, periodSeconds, maxBurst);
  }
}
