package dev.sluice.core.contract;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.util.List;

/**
 * A policy to saturate on the real clock: the shapes where a state that expires early would show,
 * at and around Hazelcast's one-second TTL resolution (per-second rates, sub-second windows, small
 * bursts, gcra with burst 0).
 */
public record SaturationCase(String name, Policy policy) {

  public static List<SaturationCase> all() {
    return List.of(
        of(
            "tb-50-1s",
            Policy.builder().algorithm(Algorithm.TOKEN_BUCKET).limit(50).window(ms(1000))),
        of(
            "tb-50-1s-burst10",
            Policy.builder()
                .algorithm(Algorithm.TOKEN_BUCKET)
                .limit(50)
                .window(ms(1000))
                .burst(10)),
        of(
            "tb-5-200ms",
            Policy.builder().algorithm(Algorithm.TOKEN_BUCKET).limit(5).window(ms(200))),
        of("gcra-50-1s", Policy.builder().algorithm(Algorithm.GCRA).limit(50).window(ms(1000))),
        of(
            "gcra-50-1s-burst0",
            Policy.builder().algorithm(Algorithm.GCRA).limit(50).window(ms(1000)).burst(0)),
        of(
            "gcra-100-2s-burst3",
            Policy.builder().algorithm(Algorithm.GCRA).limit(100).window(ms(2000)).burst(3)),
        of(
            "leaky-50-1s-burst5",
            Policy.builder().algorithm(Algorithm.LEAKY_BUCKET).limit(50).window(ms(1000)).burst(5)),
        of("sw-20-500ms", Policy.builder().limit(20).window(ms(500))),
        of("sw-50-1s", Policy.builder().limit(50).window(ms(1000))),
        of(
            "fw-20-500ms",
            Policy.builder().algorithm(Algorithm.FIXED_WINDOW).limit(20).window(ms(500))),
        of(
            "fw-50-1s",
            Policy.builder().algorithm(Algorithm.FIXED_WINDOW).limit(50).window(ms(1000))),
        of(
            "log-20-500ms",
            Policy.builder().algorithm(Algorithm.SLIDING_LOG).limit(20).window(ms(500))),
        of(
            "log-50-1s",
            Policy.builder().algorithm(Algorithm.SLIDING_LOG).limit(50).window(ms(1000))),
        of(
            "buckets-50-1s-10",
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(50)
                .window(ms(1000))
                .buckets(10)),
        of(
            "buckets-20-500ms-5",
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(20)
                .window(ms(500))
                .buckets(5)));
  }

  /**
   * Hot keys at limits high enough to lease (150 a second: a holder asks for a lease from 80
   * requests a second on a key, and two threads offer well above 150 even on a loaded machine): the
   * lease path saturated, one per algorithm. Their names start with {@code hot-}.
   */
  public static List<SaturationCase> hotKeys() {
    return List.of(
        of(
            "hot-tb-150-1s",
            Policy.builder().algorithm(Algorithm.TOKEN_BUCKET).limit(150).window(ms(1000))),
        of(
            "hot-gcra-150-1s",
            Policy.builder().algorithm(Algorithm.GCRA).limit(150).window(ms(1000))),
        of(
            "hot-leaky-150-1s-burst5",
            Policy.builder()
                .algorithm(Algorithm.LEAKY_BUCKET)
                .limit(150)
                .window(ms(1000))
                .burst(5)),
        of("hot-sw-150-1s", Policy.builder().limit(150).window(ms(1000))),
        of(
            "hot-fw-150-500ms",
            Policy.builder().algorithm(Algorithm.FIXED_WINDOW).limit(150).window(ms(500))),
        of(
            "hot-log-150-1s",
            Policy.builder().algorithm(Algorithm.SLIDING_LOG).limit(150).window(ms(1000))),
        of(
            "hot-buckets-150-1s-10",
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(150)
                .window(ms(1000))
                .buckets(10)));
  }

  /**
   * Keys that some callers ask a few times a second each (steady keys, leased to the end of their
   * window) while another caller saturates them: the window algorithms, whose leases last to the
   * end of the window or bucket. A fixed window starts every window with its whole limit, so its
   * steady callers are leased at the start of each window and the hammer drains the rest; a sliding
   * window or buckets saturated from the start leave an eighth of the limit rarely, and lease less.
   * Their names start with {@code steady-}.
   */
  public static List<SaturationCase> steadyKeys() {
    return List.of(
        of(
            "steady-fw-40-1s",
            Policy.builder().algorithm(Algorithm.FIXED_WINDOW).limit(40).window(ms(1000))),
        of("steady-sw-40-1s", Policy.builder().limit(40).window(ms(1000))),
        of(
            "steady-buckets-40-1s-2",
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(40)
                .window(ms(1000))
                .buckets(2)));
  }

  /**
   * Keys that some callers ask a few dozen times a second each (warm keys, which ask for a lease to
   * the end of the window and take a short or paced one where the owner cannot grant it) while
   * another caller saturates them: the window algorithms, and a token bucket, which has no window
   * to lease to. Their names start with {@code warm-}.
   */
  public static List<SaturationCase> warmKeys() {
    return List.of(
        of(
            "warm-fw-100-1s",
            Policy.builder().algorithm(Algorithm.FIXED_WINDOW).limit(100).window(ms(1000))),
        of("warm-sw-100-1s", Policy.builder().limit(100).window(ms(1000))),
        of(
            "warm-buckets-100-1s-2",
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(100)
                .window(ms(1000))
                .buckets(2)),
        of(
            "warm-tb-100-1s",
            Policy.builder().algorithm(Algorithm.TOKEN_BUCKET).limit(100).window(ms(1000))));
  }

  /** Whether this case's key is hot enough to lease: a {@link #hotKeys()} case. */
  public boolean hot() {
    return name.startsWith("hot-");
  }

  private static SaturationCase of(String name, Policy.Builder policy) {
    return new SaturationCase(name, policy.build());
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
