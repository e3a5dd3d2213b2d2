package dev.sluice.core.grid;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;

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
  private final GridRateLimiter limiter;

  private Sluice(HazelcastInstance member, GridRateLimiter limiter) {
    this.member = member;
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
    return new Sluice(member, new GridRateLimiter(member));
  }

  /** Wraps a member someone else started (it must have been configured by SluiceHazelcast). */
  public static Sluice of(HazelcastInstance member) {
    if (MemberContext.of(member) == null) {
      throw new IllegalArgumentException(
          "the member was not configured with SluiceHazelcast.configure(Config, TimeSource)");
    }
    return new Sluice(member, new GridRateLimiter(member));
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
    limiter.close();
    member.shutdown();
  }
}
