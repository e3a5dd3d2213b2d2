package dev.sluice.core.grid.member;

/**
 * The time-to-live an inline policy's state entry is written with (rule states are swept instead,
 * {@link StateSweeper}): long enough that Hazelcast never forgets a state that still counts.
 *
 * <h2>The rule</h2>
 *
 * A state may disappear only once it decides exactly as a fresh one would ({@link
 * dev.sluice.core.algorithm.LimiterAlgorithm#untilFreshNanos}, {@code u} below). Hazelcast keeps an
 * entry's expiry instant and its TTL in whole seconds, each rounded <em>down</em> ({@code
 * TimeStripUtil.stripBaseTime}, {@code ExpirationTimeSetter.toSeconds}), so an entry written at
 * {@code t} with a TTL of {@code d} ms may expire as early as {@code floor_s(t + d)}, just after
 * {@code t + d - 1 s}. The TTL is therefore
 *
 * <pre>
 *   ttl = ceil_s(u) + 1 s            so that   floor_s(t + ttl) > t + u
 * </pre>
 *
 * and the same holds if a replica recomputes the expiry from the whole-second write time and TTL
 * ({@code floor_s(t) + ceil_s(u) + 1 s > t + u}).
 *
 * <h2>What went wrong before</h2>
 *
 * The TTL used to be {@code max(1 s, u)}: a 50-per-second token bucket written at 12.999 s got an
 * expiry of 13.000 s, one millisecond later, and its next request found no state and a full bucket.
 * A saturated key received a fresh budget about once a second and admitted twice its rate
 * (docs/reliability.md, "State that expired early"). TTL is cleanup; the extra second only keeps
 * idle states a little longer.
 */
final class StateTtl {
  /**
   * No TTL: the entry is written without one (clearing one it had), and the member's sweep removes
   * it once it no longer counts ({@link StateSweeper}).
   */
  static final long NONE = -1;

  private static final long SECOND_MILLIS = 1_000L;
  private static final long MILLI_NANOS = 1_000_000L;

  private StateTtl() {}

  /**
   * The TTL, in whole seconds of milliseconds, of a state that is fresh again {@code
   * untilFreshNanos} from now; at least {@code minMillis} (a member on a manual clock raises it).
   */
  static long millis(long untilFreshNanos, long minMillis) {
    long untilFreshMillis = -Math.floorDiv(-Math.max(0, untilFreshNanos), MILLI_NANOS);
    long wholeSeconds = -Math.floorDiv(-untilFreshMillis, SECOND_MILLIS);
    long ttl =
        wholeSeconds >= Long.MAX_VALUE / SECOND_MILLIS - 1
            ? Long.MAX_VALUE
            : (wholeSeconds + 1) * SECOND_MILLIS;
    return Math.max(minMillis, ttl);
  }
}
