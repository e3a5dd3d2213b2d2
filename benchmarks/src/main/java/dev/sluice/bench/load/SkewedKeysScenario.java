package dev.sluice.bench.load;

import dev.sluice.bench.load.Bucket4jContender.Mode;
import java.util.List;

/**
 * S7: skewed keys, Zipf s = 1.1 over 100,000 keys, 16 threads, a per-key limit of 50/s that the
 * hottest keys exceed many times over while most keys stay far below it; through a client and
 * embedded, every contender's admissions judged against its rule's bound.
 */
final class SkewedKeysScenario implements Scenario {
  static final int KEYS = 100_000;
  static final double ZIPF_EXPONENT = 1.1;

  /** One line per contender; client and embedded rows compare within their group. */
  static final List<ContenderSpec> CONTENDERS =
      List.of(
          Contenders.sluiceClient(true),
          Contenders.sluiceClient(false),
          Contenders.bucket4jClient(Mode.PLAIN),
          Contenders.bucket4jClient(Mode.BATCHING),
          Contenders.bucket4jClient(Mode.DELAYING),
          Contenders.bucket4jClient(Mode.DELAYING, 4),
          Contenders.redisLua(),
          Contenders.partitionBudgetCeiling(),
          Contenders.sluiceEmbedded(true),
          Contenders.sluiceEmbedded(false),
          Contenders.sluiceEmbeddedTtlStorage(),
          Contenders.bucket4jEmbedded());

  /**
   * S7t: the same keys and load on token-bucket and GCRA keys, so that no rule shape is the only
   * one lease policy is measured on: Sluice on each (leases on and off), beside Bucket4j (whose
   * algorithm the token bucket is) and the Redis script (a sliding window of the same limit).
   */
  static final List<ContenderSpec> BUCKET_CONTENDERS =
      List.of(
          Contenders.sluiceClient(true, "token_bucket").withRule(BenchRule.SKEW_TOKEN_BUCKET),
          Contenders.sluiceClient(false, "token_bucket").withRule(BenchRule.SKEW_TOKEN_BUCKET),
          Contenders.sluiceClient(true, "gcra").withRule(BenchRule.SKEW_GCRA),
          Contenders.sluiceClient(false, "gcra").withRule(BenchRule.SKEW_GCRA),
          Contenders.bucket4jClient(Mode.PLAIN),
          Contenders.bucket4jClient(Mode.DELAYING),
          Contenders.redisLua(),
          Contenders.sluiceEmbedded(true, "token_bucket").withRule(BenchRule.SKEW_TOKEN_BUCKET),
          Contenders.sluiceEmbedded(true, "gcra").withRule(BenchRule.SKEW_GCRA),
          Contenders.bucket4jEmbedded());

  @Override
  public String id() {
    return "S7";
  }

  @Override
  public void run(BenchContext context) {
    BenchRule rule = BenchRule.SKEW;
    Workload load =
        context
            .settings()
            .workload(16, KeySpace.zipf("z", KEYS, ZIPF_EXPONENT))
            .countingExactness();
    ScenarioResult s =
        new ScenarioResult(
            "S7",
            "Skewed keys: Zipf s = 1.1 over 100,000 keys, 50/s per key",
            "16 threads, "
                + load.keys().description()
                + "; rule "
                + rule.describe()
                + " per key (Bucket4j: capacity 50 refilled greedily at 50/s; delaying "
                + Bucket4jContender.describeDelay(rule)
                + "), so the hottest keys are saturated and most keys never reach the limit."
                + " Client rows go through a client to a server in its own process, as in S2;"
                + " embedded rows decide on a member in the load JVM, as in S1. Sluice runs with"
                + " leases on (its default: only keys asked about 8 times in 100 ms, or 10 times a"
                + " second over a second, are leased) and off. Every admission is judged against"
                + " the contender's own bound, per key. The ceiling row is not a limiter: it"
                + " shows what a budget per partition for keys far from their limit (a design not"
                + " built, issue 18) could reach, by answering such keys locally once per 100 ms"
                + " and counting them at the owner afterwards; it is not exact.");
    Measurement.run(context, s, load, rule, CONTENDERS);
    context.report().scenario(s);

    BenchRule bucket = BenchRule.SKEW_TOKEN_BUCKET;
    ScenarioResult buckets =
        new ScenarioResult(
            "S7t",
            "Skewed keys on token-bucket and GCRA keys",
            "The same keys and load as S7 under "
                + bucket.describe()
                + " and "
                + BenchRule.SKEW_GCRA.describe()
                + " per key (Bucket4j: capacity 50 refilled greedily at 50/s, the token bucket's"
                + " own parameters; delaying "
                + Bucket4jContender.describeDelay(bucket)
                + "; the Redis script: a sliding window of 50/s), so that lease policy is measured"
                + " on more than one rule shape. Sluice rows name their algorithm; every admission"
                + " is judged against the contender's own bound, per key.");
    Measurement.run(context, buckets, load, bucket, BUCKET_CONTENDERS);
    context.report().scenario(buckets);
  }
}
