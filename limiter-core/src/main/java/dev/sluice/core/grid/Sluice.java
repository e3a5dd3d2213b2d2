package dev.sluice.core.grid;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.metrics.DecisionMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Sluice inside your JVM: starts (or joins) a Hazelcast member with the limiter installed.
 *
 * <pre>{@code
 * try (Sluice sluice = Sluice.embedded(new Config().setClusterName("rate-limits"))) {
 *   sluice.limiter().rules().put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
 *   Decision decision = sluice.limiter().tryAcquire("login", "203.0.113.7");
 * }
 * }</pre>
 */
public final class Sluice implements AutoCloseable {
  private final HazelcastInstance member;
  private final GridRateLimiter grid;
  private final RateLimiter limiter;

  private Sluice(HazelcastInstance member, GridRateLimiter grid, RateLimiter limiter) {
    this.member = member;
    this.grid = grid;
    this.limiter = limiter;
  }

  /** Starts a member from {@code config} on the system clock. */
  public static Sluice embedded(Config config) {
    return embedded(config, TimeSource.system());
  }

  /** Starts a member from {@code config} whose decisions read {@code timeSource}. */
  public static Sluice embedded(Config config, TimeSource timeSource) {
    SluiceHazelcast.configure(config, timeSource);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    GridRateLimiter grid = new GridRateLimiter(member);
    return new Sluice(member, grid, grid);
  }

  /**
   * Starts a member from {@code config} on the system clock whose limiter records every decision in
   * {@code registry} ({@code sluice_decisions_total}, {@code sluice_decision_seconds}), as a REST
   * node and an SDK client do ({@link DecisionMetrics}).
   */
  public static Sluice embedded(Config config, MeterRegistry registry) {
    Sluice sluice = embedded(config, TimeSource.system());
    return new Sluice(sluice.member, sluice.grid, DecisionMetrics.record(sluice.grid, registry));
  }

  /** Wraps a member someone else started (it must have been configured by SluiceHazelcast). */
  public static Sluice of(HazelcastInstance member) {
    if (MemberContext.of(member) == null) {
      throw new IllegalArgumentException(
          "the member was not configured with SluiceHazelcast.configure(Config, TimeSource)");
    }
    GridRateLimiter grid = new GridRateLimiter(member);
    return new Sluice(member, grid, grid);
  }

  public RateLimiter limiter() {
    return limiter;
  }

  public HazelcastInstance hazelcast() {
    return member;
  }

  /** Stops the limiter's callback threads and leaves the cluster gracefully. */
  @Override
  public void close() {
    grid.close();
    member.shutdown();
  }
}
