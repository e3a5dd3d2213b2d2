package dev.sluice.bench.load;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Durations;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A rule the contenders of a scenario enforce. Its name is the rule's name on the grid node (whose
 * rules file {@link #rulesYaml} writes) and on an embedded member, and the prefix of the peers'
 * keys; its policy is what every contender is configured from: Sluice takes it as it is, Bucket4j
 * as a bandwidth ({@link Bucket4jContender}), the Redis script as limit and window.
 *
 * <p>A variant of a rule for a new contender (for example one with leases, once rules have that
 * option) is one more constant here and in {@link #ALL}, and one line in the scenario.
 */
public record BenchRule(String name, Policy policy) {

  /**
   * The throughput rule: a limit no contender reaches on uniform keys, so decisions admit (S1, S2,
   * S5).
   */
  public static final BenchRule BENCH = new BenchRule("bench", Policy.of(1_000_000, second()));

  /**
   * One hot key under a limit that no contender reaches, not even one answering from a local copy
   * at millions a second (S3): the admitting path alone. {@link #BENCH}'s 1,000,000/s is reached
   * there by Bucket4j's {@code delaying} and by Sluice's leases, and a reached limit measures
   * denials instead.
   */
  public static final BenchRule OPEN = new BenchRule("open", Policy.of(1_000_000_000L, second()));

  /** One key at 10 requests per second, hammered (S4). */
  public static final BenchRule ATTACK = new BenchRule("attack", Policy.of(10, second()));

  /** One hot key with a limit that 16 threads exceed many times over (S3, saturated). */
  public static final BenchRule HOT = new BenchRule("hot", Policy.of(1_000, second()));

  /**
   * {@link #HOT} as a token bucket of 1,000 tokens refilled at 1,000 per second: the same rule as
   * Bucket4j's bandwidth, for a like-for-like row (and the algorithm issue 15 was about).
   */
  public static final BenchRule HOT_TOKEN_BUCKET =
      new BenchRule(
          "hot-tb",
          Policy.builder()
              .algorithm(Algorithm.TOKEN_BUCKET)
              .limit(1_000)
              .window(second())
              .burst(1_000)
              .build());

  /** The per-key limit of the skewed-key scenario, which the hottest keys exceed (S7). */
  public static final BenchRule SKEW = new BenchRule("skew", Policy.of(50, second()));

  /**
   * {@link #SKEW} as a token bucket of 50 tokens refilled at 50 per second, Bucket4j's bandwidth
   * (S7 on token-bucket keys): lease policy is not tuned for one rule shape alone.
   */
  public static final BenchRule SKEW_TOKEN_BUCKET =
      new BenchRule("skew-tb", bucket(Algorithm.TOKEN_BUCKET, 50));

  /** {@link #SKEW} as GCRA with the same rate and burst as {@link #SKEW_TOKEN_BUCKET}. */
  public static final BenchRule SKEW_GCRA = new BenchRule("skew-gcra", bucket(Algorithm.GCRA, 50));

  /**
   * A global rule (S10): counted at the home grid, decided in each region from the budget home
   * leased to it. Its hottest keys exceed it from both regions together, most stay under it. Not in
   * {@link #ALL}: only the clusters of S10, which know it is global, serve it.
   */
  public static final BenchRule GLOBAL =
      new BenchRule(
          "global",
          Policy.builder()
              .algorithm(Algorithm.SLIDING_WINDOW)
              .limit(100)
              .window(second())
              .scope(Scope.atHome())
              .build());

  /** Every rule; the grid node serves all of them. */
  public static final List<BenchRule> ALL =
      List.of(BENCH, OPEN, ATTACK, HOT, HOT_TOKEN_BUCKET, SKEW, SKEW_TOKEN_BUCKET, SKEW_GCRA);

  /** {@code algorithm} at {@code perSecond} a second, its burst as large. */
  private static Policy bucket(Algorithm algorithm, long perSecond) {
    return Policy.builder()
        .algorithm(algorithm)
        .limit(perSecond)
        .window(second())
        .burst(perSecond)
        .build();
  }

  public long limit() {
    return policy.limit();
  }

  public Duration window() {
    return policy.window();
  }

  /** As a Sluice rule, for an embedded member or a client's rule store. */
  public Rule rule() {
    return new Rule(name, policy);
  }

  /** In words: {@code sliding_window 1,000/1s}, with the burst where the algorithm has one. */
  public String describe() {
    String burst =
        hasBurst(policy) ? String.format(Locale.ROOT, ", burst %,d", policy.burst()) : "";
    return String.format(
        Locale.ROOT,
        "`%s` = %s %,d/%s%s",
        name,
        policy.algorithm().wireName(),
        policy.limit(),
        Durations.format(policy.window()),
        burst);
  }

  /** A rules file (the format of docs/configuration.md) with {@code rules}. */
  public static String rulesYaml(List<BenchRule> rules) {
    StringBuilder yaml = new StringBuilder("rules:\n");
    for (BenchRule rule : rules) {
      Policy p = rule.policy();
      yaml.append("  - name: ").append(rule.name()).append('\n');
      yaml.append("    algorithm: ").append(p.algorithm().wireName()).append('\n');
      yaml.append("    limit: ").append(p.limit()).append('\n');
      yaml.append("    window: ").append(Durations.format(p.window())).append('\n');
      if (hasBurst(p)) {
        yaml.append("    burst: ").append(p.burst()).append('\n');
      }
    }
    return yaml.toString();
  }

  private static boolean hasBurst(Policy p) {
    return p.algorithm() == Algorithm.TOKEN_BUCKET
        || p.algorithm() == Algorithm.GCRA
        || p.algorithm() == Algorithm.LEAKY_BUCKET;
  }

  private static Duration second() {
    return Duration.ofSeconds(1);
  }
}
