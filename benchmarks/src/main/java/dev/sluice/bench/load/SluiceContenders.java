package dev.sluice.bench.load;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.Sluice;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.wire.GridNames;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Sluice's contenders: an embedded member ({@link Sluice#embedded}), the client SDK (over a
 * Hazelcast client of a grid node), and the memory probe.
 */
final class SluiceContenders {
  static final Duration CLIENT_CALL_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The TTL of {@link #embeddedTtlStorage}'s states: the longest a bench rule's state counts (a
   * sliding window's two one-second windows) plus the second Sluice's TTL added, the longest TTL
   * that storage gave a bench rule's state. Every rule in {@link BenchRule#ALL} has a one-second
   * window.
   */
  static final int TTL_STORAGE_SECONDS = 3;

  private SluiceContenders() {}

  /** Sluice's state map settings, read from the configuration Sluice itself applies. */
  static BenchContext.StateMapSettings stateMapSettings() {
    Config config = SluiceHazelcast.configure(new Config(), TimeSource.system());
    MapConfig state = config.getMapConfig(GridNames.STATE_MAP);
    return new BenchContext.StateMapSettings(
        state.getBackupCount(),
        state.getInMemoryFormat(),
        "read from SluiceHazelcast.configure, map " + GridNames.STATE_MAP);
  }

  /**
   * A Sluice member in this JVM, alone in its cluster, with every {@link BenchRule}, deciding
   * {@code rule}.
   */
  static Contender embedded(String name, String clusterName, int port, BenchRule rule) {
    Sluice sluice = Sluice.embedded(BenchMembers.member(clusterName, port));
    RateLimiter limiter = sluice.limiter();
    BenchRule.ALL.forEach(r -> limiter.rules().put(r.rule()));
    return new LimiterContender(name, limiter, rule, sluice::close);
  }

  /**
   * The same member with leases on or off ({@link GridRateLimiter.Options#withLeases}). On is the
   * default ({@link Sluice#embedded} does the same): the member's limiter leases its hot keys from
   * their owner, here the member itself (alone in its cluster it owns every key), and answers from
   * the lease without an entry processor until it is spent or ends.
   */
  static Contender embedded(
      String name, String clusterName, int port, BenchRule rule, boolean leases) {
    Config config = BenchMembers.member(clusterName, port);
    SluiceHazelcast.configure(config, TimeSource.system());
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    GridRateLimiter limiter =
        new GridRateLimiter(member, GridRateLimiter.Options.defaults().withLeases(leases));
    BenchRule.ALL.forEach(r -> limiter.rules().put(r.rule()));
    return new LimiterContender(
        name,
        limiter,
        rule,
        () -> {
          limiter.close();
          member.shutdown();
        });
  }

  /**
   * {@link #embedded} with the storage Sluice had before issue 21: a BINARY state map and a TTL on
   * every write. Sluice writes rule states without a TTL and sweeps them; this member instead gives
   * every write Hazelcast's map-wide TTL of {@link #TTL_STORAGE_SECONDS}, and puts its sweep off
   * past any run, so that each entry carries the expiry record and each write the TTL it did then.
   */
  static Contender embeddedTtlStorage(String name, String clusterName, int port, BenchRule rule) {
    if (rule.window().compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException(
          rule.name()
              + ": the TTL storage keeps states "
              + TTL_STORAGE_SECONDS
              + " s, for windows up to 1 s");
    }
    Config config = BenchMembers.member(clusterName, port);
    config.setProperty(
        SluiceHazelcast.SWEEP_PERIOD_MILLIS_PROPERTY, Long.toString(Duration.ofDays(1).toMillis()));
    SluiceHazelcast.configure(config, TimeSource.system(), InMemoryFormat.BINARY);
    config.getMapConfig(GridNames.STATE_MAP).setTimeToLiveSeconds(TTL_STORAGE_SECONDS);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    Sluice sluice = Sluice.of(member);
    RateLimiter limiter = sluice.limiter();
    BenchRule.ALL.forEach(r -> limiter.rules().put(r.rule()));
    return new LimiterContender(name, limiter, rule, sluice::close);
  }

  /**
   * Sluice's client SDK ({@link SluiceClient}, its defaults: denied-until cache and per-key
   * coalescing on) connected to the grid node at 127.0.0.1:{@code memberPort}. The call timeout is
   * raised from 50 ms to 10 s, like the peers' (Lettuce and HTTP: 10 s), so that on a loaded
   * machine every answer is a real decision and not the failure policy's.
   */
  static Contender client(String name, String clusterName, int memberPort, BenchRule rule) {
    return client(name, clusterName, memberPort, rule, UnaryOperator.identity());
  }

  /**
   * The same with {@code options} applied to the builder last, for a variant: per-key coalescing
   * off, or a client-side feature to compare with and without.
   */
  static Contender client(
      String name,
      String clusterName,
      int memberPort,
      BenchRule rule,
      UnaryOperator<SluiceClient.Builder> options) {
    SluiceClient client = sdk(clusterName, memberPort, options);
    return new LimiterContender(name, client, rule, client::close);
  }

  /**
   * The SDK connected to the grid node at 127.0.0.1:{@code memberPort}, as the rows above use it.
   */
  static SluiceClient sdk(
      String clusterName, int memberPort, UnaryOperator<SluiceClient.Builder> options) {
    return options
        .apply(
            SluiceClient.builder()
                .addresses("127.0.0.1:" + memberPort)
                .clusterName(clusterName)
                .callTimeout(CLIENT_CALL_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(30)))
        .build();
  }

  /** Any Sluice {@link RateLimiter} as a contender, one permit of {@code rule} per call. */
  static final class LimiterContender implements Contender {
    private final String name;
    private final RateLimiter limiter;
    private final BenchRule rule;
    private final String ruleName;
    private final String keyPrefix;
    private final Runnable close;

    LimiterContender(String name, RateLimiter limiter, BenchRule rule, Runnable close) {
      this(name, limiter, rule, ContenderKeys.prefix(), close);
    }

    /**
     * A contender that shares its keys ({@code keyPrefix}, from {@link ContenderKeys#prefix}) with
     * others: the limiters of one design on several members (S10).
     */
    LimiterContender(
        String name, RateLimiter limiter, BenchRule rule, String keyPrefix, Runnable close) {
      this.name = name;
      this.limiter = limiter;
      this.rule = rule;
      this.ruleName = rule.name();
      this.keyPrefix = keyPrefix;
      this.close = close;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Optional<Policy> enforced() {
      return Optional.of(rule.policy());
    }

    @Override
    public Outcome decide(String key) {
      return outcomeOf(limiter.tryAcquire(ruleName, keyPrefix + key));
    }

    /** A Sluice decision as the harness counts it; a failure policy's answer is an error. */
    static Outcome outcomeOf(Decision decision) {
      return switch (decision.decidedBy()) {
        case LIMITER -> decision.allowed() ? Outcome.ALLOWED : Outcome.DENIED;
        case DENIED_CACHE -> Outcome.DENIED_LOCALLY;
        case LEASE -> decision.allowed() ? Outcome.ALLOWED_LOCALLY : Outcome.DENIED_LOCALLY;
        // Not a decision of the limiter: the grid was unreachable or too slow.
        case FAIL_OPEN, FAIL_CLOSED ->
            throw new IllegalStateException("decided locally by " + decision.decidedBy());
      };
    }

    @Override
    public void close() {
      close.run();
    }
  }
}
