package dev.sluice.bench.load;

import dev.sluice.bench.load.Bucket4jContender.Mode;
import java.util.List;
import java.util.stream.Stream;

/**
 * S3: all 16 threads on one key, twice: under a limit nothing reaches (the admitting path on one
 * partition) and saturated, under a limit the load exceeds many times over, where every contender's
 * admissions beyond its rule's bound are counted. Bucket4j runs plain and with its client-side
 * optimizations; Sluice runs with leases on (its default) and off, through its client and embedded
 * (beside Bucket4j embedded); a contender added to {@link #CONTENDERS} runs in both.
 */
final class HotKeyScenario implements Scenario {
  /** Both runs' contenders; the saturated run adds {@link #SATURATED_ONLY}. */
  static final List<ContenderSpec> CONTENDERS =
      List.of(
          Contenders.sluiceClient(true),
          Contenders.sluiceClient(false),
          Contenders.bucket4jClient(Mode.PLAIN),
          Contenders.bucket4jClient(Mode.BATCHING),
          Contenders.bucket4jClient(Mode.DELAYING),
          Contenders.redisLua(),
          Contenders.sluiceEmbedded(true),
          Contenders.sluiceEmbedded(false),
          Contenders.bucket4jEmbedded());

  /**
   * The row that only means something under a limit nothing reaches: what the load driver itself
   * reaches with a contender that does nothing, the ceiling of every local answer.
   */
  static final List<ContenderSpec> OPEN_ONLY = List.of(Contenders.driverCeiling());

  /**
   * Rows that only mean something on a saturated key: Sluice with Bucket4j's own algorithm, and
   * Bucket4j's delaying with several holders, where it over-admits.
   */
  static final List<ContenderSpec> SATURATED_ONLY =
      List.of(
          Contenders.sluiceClient("Sluice client (token_bucket)")
              .withRule(BenchRule.HOT_TOKEN_BUCKET),
          Contenders.bucket4jClient(Mode.DELAYING, 4));

  @Override
  public String id() {
    return "S3";
  }

  @Override
  public void run(BenchContext context) {
    Workload load = context.settings().workload(16, KeySpace.hot("hot")).countingExactness();
    BenchRule open = BenchRule.OPEN;
    ScenarioResult s =
        new ScenarioResult(
            "S3",
            "Hot key: all 16 threads on one key",
            "As S2, but every call is for the same key; rule "
                + open.describe()
                + ", far more than any contender reaches, even one answering from a local copy at"
                + " millions a second, so this measures the admitting path on one key (the"
                + " 1,000,000/s rule of S1 and S2 was reached here by Bucket4j's `delaying` and by"
                + " Sluice's leases, and then measured denials). Bucket4j also runs with its client-side optimizations: `batching`"
                + " (its counterpart to Sluice's per-key coalescing) and `delaying` ("
                + Bucket4jContender.describeDelay(open)
                + ": answers from a local copy of the bucket and synchronizes every 5 % of the"
                + " limit or of the window). The target compares with Bucket4j's fastest mode."
                + " Sluice runs with leases on (its default: the client or member leases the hot"
                + " key from its owner and answers from the lease) and off; embedded rows decide on"
                + " a member in the load JVM, alone in its cluster, beside Bucket4j embedded. `"
                + DriverCeiling.NAME
                + "` is the driver with a contender that admits at once: no local answer can"
                + " pass it.");
    Measurement.run(
        context, s, load, open, Stream.concat(CONTENDERS.stream(), OPEN_ONLY.stream()).toList());
    context.report().scenario(s);

    BenchRule hot = BenchRule.HOT;
    ScenarioResult saturated =
        new ScenarioResult(
            "S3s",
            "Hot key, saturated: 16 threads on one key limited to 1,000/s",
            "The same key and load under rule "
                + hot.describe()
                + " (Bucket4j: capacity 1,000 refilled greedily at 1,000/s; delaying "
                + Bucket4jContender.describeDelay(hot)
                + "), which every contender's load exceeds many times over: nearly every call is a"
                + " denial, and every admission is judged against the contender's own bound."
                + " `Sluice client (token_bucket)` decides "
                + BenchRule.HOT_TOKEN_BUCKET.describe()
                + ", Bucket4j's algorithm and parameters. `4 holders` gives the key four"
                + " independent Bucket4j proxies, as four application instances would have.");
    Measurement.run(
        context,
        saturated,
        load,
        hot,
        Stream.concat(CONTENDERS.stream(), SATURATED_ONLY.stream()).toList());
    context.report().scenario(saturated);
  }
}
