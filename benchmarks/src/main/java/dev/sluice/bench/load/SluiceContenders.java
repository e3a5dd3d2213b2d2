package dev.sluice.bench.load;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.Sluice;
import dev.sluice.core.grid.SluiceHazelcast;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Sluice's contenders: an embedded member ({@link Sluice#embedded}), the client SDK (over a
 * Hazelcast client of a grid node), and the memory probe.
 */
final class SluiceContenders {
  static final Duration CLIENT_CALL_TIMEOUT = Duration.ofSeconds(10);

  private SluiceContenders() {}

  /** Sluice's state map settings, read from the configuration Sluice itself applies. */
  static BenchContext.StateMapSettings stateMapSettings() {
    Config config = SluiceHazelcast.configure(new Config(), TimeSource.system());
    MapConfig state = config.getMapConfig(SluiceHazelcast.STATE_MAP);
    return new BenchContext.StateMapSettings(
        state.getBackupCount(),
        state.getInMemoryFormat(),
        "read from SluiceHazelcast.configure, map " + SluiceHazelcast.STATE_MAP);
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
    SluiceClient client =
        options
            .apply(
                SluiceClient.builder()
                    .addresses("127.0.0.1:" + memberPort)
                    .clusterName(clusterName)
                    .callTimeout(CLIENT_CALL_TIMEOUT)
                    .connectTimeout(Duration.ofSeconds(30)))
            .build();
    return new LimiterContender(name, client, rule, client::close);
  }

  /**
   * Bytes per active sliding_window key: fills {@code keys} keys on one embedded member and reads
   * the state map's {@link LocalMapStats}, and, as a cross-check, the JVM heap growth after GC.
   */
  static List<MemoryRow> memory(int keys) {
    List<MemoryRow> rows = new ArrayList<>();
    try (Sluice sluice =
        Sluice.embedded(
            BenchMembers.member("bench-mem-" + UUID.randomUUID(), ManagedProcess.freePort()))) {
      RateLimiter limiter = sluice.limiter();
      limiter.rules().put(new Rule("mem", Policy.of(1_000, Duration.ofMinutes(1))));
      long heapBefore = usedHeapAfterGc();
      int batch = 1_000;
      for (int from = 0; from < keys; from += batch) {
        List<Check> checks = new ArrayList<>(batch);
        for (int i = from; i < Math.min(keys, from + batch); i++) {
          checks.add(Check.of("mem", "m" + i));
        }
        for (Decision decision : limiter.tryAcquireAll(checks)) {
          if (!decision.allowed()) {
            throw new IllegalStateException("a first decision on a fresh key was denied");
          }
        }
      }
      LocalMapStats stats = sluice.hazelcast().getMap(SluiceHazelcast.STATE_MAP).getLocalMapStats();
      long entries = stats.getOwnedEntryCount();
      if (entries != keys) {
        throw new IllegalStateException(
            "the state map holds " + entries + " keys, expected " + keys);
      }
      long heapAfter = usedHeapAfterGc();
      rows.add(
          new MemoryRow(
              "Sluice (LocalMapStats)",
              keys,
              stats.getOwnedEntryMemoryCost() / (double) keys,
              String.format(
                  Locale.ROOT,
                  "`getOwnedEntryMemoryCost()` of `%s` (%s) over the key count",
                  SluiceHazelcast.STATE_MAP,
                  stateMapSettings().format()),
              null));
      if (keys >= 500_000) { // below that, GC noise is as large as the figure
        rows.add(
            new MemoryRow(
                "Sluice (JVM heap growth, cross-check)",
                keys,
                (heapAfter - heapBefore) / (double) keys,
                "used heap after full GC, after minus before filling, over the key count: everything"
                    + " the member keeps per key (record, key, value, indexes, expiry)",
                null));
      }
    }
    return rows;
  }

  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      ManagedProcess.sleep(Duration.ofMillis(100));
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Any Sluice {@link RateLimiter} as a contender, one permit of {@code rule} per call. */
  static final class LimiterContender implements Contender {
    private final String name;
    private final RateLimiter limiter;
    private final BenchRule rule;
    private final String ruleName;
    private final Runnable close;

    LimiterContender(String name, RateLimiter limiter, BenchRule rule, Runnable close) {
      this.name = name;
      this.limiter = limiter;
      this.rule = rule;
      this.ruleName = rule.name();
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
      Decision decision = limiter.tryAcquire(ruleName, key);
      return switch (decision.decidedBy()) {
        case LIMITER -> decision.allowed() ? Outcome.ALLOWED : Outcome.DENIED;
        case DENIED_CACHE -> Outcome.DENIED_LOCALLY;
        case LEASE -> Outcome.ALLOWED_LOCALLY;
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
