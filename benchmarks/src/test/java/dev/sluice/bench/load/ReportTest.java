package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.load.exactness.Exactness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  /** Sluice's owner path, which compares with a peer that goes to the owner on every call. */
  static final String OWNER_PATH = "Sluice client (leases off)";

  /** Sluice's default, which answers in the caller from leases. */
  static final String LEASED = "Sluice client (leases on)";

  /** A round of {@code ops} decisions in one second, every one taking {@code latencyMicros}. */
  static RoundResult round(long ops, long latencyMicros, long localDenials) {
    Histogram histogram = new Histogram(60_000_000_000L, 3);
    histogram.recordValueWithCount(latencyMicros * 1_000, ops);
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    outcomes.put(Outcome.ALLOWED, ops - localDenials);
    outcomes.put(Outcome.DENIED_LOCALLY, localDenials);
    return new RoundResult(ops, 1_000_000_000L, Latency.of(histogram), outcomes, null, null);
  }

  /**
   * A round of {@code ops} decisions in one second, {@code admitted} of them, {@code over} over.
   */
  static RoundResult judged(long ops, long admitted, long over, String worstKey) {
    Histogram histogram = new Histogram(60_000_000_000L, 3);
    histogram.recordValueWithCount(100_000, ops);
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    outcomes.put(Outcome.ALLOWED, admitted);
    outcomes.put(Outcome.DENIED, ops - admitted);
    Exactness exactness =
        new Exactness(admitted, admitted, over, over > 0 ? 1 : 0, over > 0 ? worstKey : "", over);
    return new RoundResult(ops, 1_000_000_000L, Latency.of(histogram), outcomes, null, exactness);
  }

  /** A scenario of one-round rows: a name, then its decisions per second, for each row. */
  static ScenarioResult scenario(Object... namesAndRates) {
    ScenarioResult s = new ScenarioResult("S", "scenario", "");
    for (int i = 0; i < namesAndRates.length; i += 2) {
      long rate = ((Number) namesAndRates[i + 1]).longValue();
      s.add(ContenderRun.measured((String) namesAndRates[i], List.of(round(rate, 50, 0))));
    }
    return s;
  }

  /**
   * {@code sluice}'s throughput target of at least {@code minRatio} over the best of {@code peers}.
   */
  static TargetRow throughputTarget(
      ScenarioResult s, String sluice, double minRatio, String... peers) {
    return Targets.ratioTarget(
        "T", "t", Optional.of(s), sluice, List.of(peers), minRatio, Double.NaN);
  }

  @Test
  void contenderRun_oddAndEvenRounds_reportMedianAndSpread() {
    ContenderRun three =
        ContenderRun.measured(
            "x", List.of(round(100, 10, 0), round(300, 30, 0), round(200, 20, 0)));
    ContenderRun two = ContenderRun.measured("y", List.of(round(100, 10, 0), round(300, 30, 0)));

    assertThat(three.medianThroughput()).isEqualTo(200);
    assertThat(three.spread()).isEqualTo(1.0); // (300 - 100) / 200
    assertThat(three.medianPercentileMicros(99)).isBetween(19.9, 20.1);
    assertThat(two.medianThroughput()).isEqualTo(200);
  }

  @Test
  void contenderRun_localDenials_giveTheLocalShare() {
    ContenderRun run = ContenderRun.measured("s", List.of(round(1_000, 1, 995)));

    assertThat(run.localShare()).isEqualTo(0.995);
  }

  @Test
  void ratioTarget_sluiceTwiceAsFast_isMet() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.measured(OWNER_PATH, List.of(round(300_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), OWNER_PATH, List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict()).isEqualTo("met");
    assertThat(row.measured())
        .startsWith("3.00× Bucket4j client (300,000 vs 100,000 /s, over-admitted not counted vs");
  }

  @Test
  void ratioTarget_shortOfTheRatioAndSlowerP99_saysWhichBoundItMissed() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.measured(OWNER_PATH, List.of(round(150_000, 90, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), OWNER_PATH, List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict())
        .contains("MISSED")
        .contains("throughput 1.50× is below 2.00×")
        .contains("p99 1.50× is above 1.00×");
  }

  @Test
  void ratioTarget_aMissByLessThanTheLastDigit_printsTheDigitThatShowsIt() {
    String delaying = "Bucket4j client (delaying)";
    ScenarioResult s = scenario("Sluice client", 119_700, delaying, 100_000);

    TargetRow row = throughputTarget(s, "Sluice client", 1.2, delaying);

    assertThat(row.measured()).startsWith("1.197× Bucket4j client (delaying)");
    assertThat(row.verdict()).contains("throughput 1.197× is below 1.20×");
  }

  @Test
  void ratioTarget_comparesWithTheBestPeerMode() {
    ScenarioResult s =
        scenario(
            OWNER_PATH, 500_000, "Bucket4j client", 50_000, "Bucket4j client (batching)", 200_000);

    TargetRow row =
        throughputTarget(s, OWNER_PATH, 5.0, "Bucket4j client", "Bucket4j client (batching)");

    assertThat(row.measured()).startsWith("2.50× Bucket4j client (batching)");
    assertThat(row.verdict()).contains("MISSED").contains("below 5.00×");
  }

  @Test
  void ratioTarget_leasedRow_comparesOnlyWithAPeerThatAnswersInTheCallerToo() {
    String batching = "Bucket4j client (batching)";
    String delaying = "Bucket4j client (delaying)";
    ScenarioResult s = scenario(LEASED, 1_000_000, batching, 200_000, delaying, 100_000);

    TargetRow row = throughputTarget(s, LEASED, 10.0, batching, delaying);

    assertThat(row.measured()).startsWith("10.00× Bucket4j client (delaying)");
    assertThat(row.verdict()).isEqualTo("met");
  }

  @Test
  void ratioTarget_leasedRowAgainstAPeerThatGoesToTheOwner_isNeverJudged() {
    ScenarioResult s = scenario(LEASED, 1_000_000, "Redis + Lua", 100_000);

    TargetRow row = throughputTarget(s, LEASED, 1.5, "Redis + Lua");

    assertThat(row.verdict()).startsWith("not run: no peer that compares with " + LEASED);
  }

  /**
   * S7-like rows, every admission judged: Sluice leased at 400,000/s over-admitting {@code
   * leasedOver}, Sluice's owner path at {@code ownerPath}/s, Redis + Lua at 100,000/s.
   */
  static ScenarioResult skewed(long leasedOver, long ownerPath) {
    ScenarioResult s = new ScenarioResult("S7", "skewed", "");
    s.add(ContenderRun.measured(LEASED, List.of(judged(400_000, 1_000, leasedOver, "z3"))));
    s.add(ContenderRun.measured(OWNER_PATH, List.of(judged(ownerPath, 1_000, 0, ""))));
    s.add(ContenderRun.measured("Redis + Lua", List.of(judged(100_000, 1_000, 0, ""))));
    return s;
  }

  @Test
  void beside_putsTheLeasedFigureBesideTheOwnerPathVerdict_neverAsARatio() {
    ScenarioResult s = skewed(0, 150_000);

    TargetRow row =
        Targets.beside(throughputTarget(s, OWNER_PATH, 2.0, "Redis + Lua"), Optional.of(s), LEASED);

    assertThat(row.measured())
        .startsWith("1.50× Redis + Lua (150,000 vs 100,000 /s, over-admitted 0 vs 0)")
        .endsWith(
            "; leases on (what a user gets): 400,000 /s, 0.00 % answered locally, over-admitted 0")
        .doesNotContain("4.00×");
    assertThat(row.verdict()).startsWith("**MISSED**: throughput 1.50× is below 2.00×");
  }

  @Test
  void beside_scenarioThatJudgesNoAdmission_saysTheLeasedFigureIsNotCounted() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.measured(LEASED, List.of(round(900_000, 5, 0))));
    s.add(ContenderRun.measured(OWNER_PATH, List.of(round(300_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.beside(
            throughputTarget(s, OWNER_PATH, 2.0, "Bucket4j client"), Optional.of(s), LEASED);

    assertThat(row.measured())
        .endsWith(
            "; leases on (what a user gets): 900,000 /s, 0.00 % answered locally,"
                + " over-admitted not counted");
    assertThat(row.verdict()).isEqualTo("met");
  }

  @Test
  void beside_leasedRowOverAdmitted_missesTheTarget() {
    ScenarioResult s = skewed(2, 300_000);
    TargetRow owner = throughputTarget(s, OWNER_PATH, 2.0, "Redis + Lua");

    TargetRow row = Targets.beside(owner, Optional.of(s), LEASED);

    assertThat(owner.verdict()).isEqualTo("met");
    assertThat(row.verdict()).isEqualTo("**MISSED**: " + LEASED + " over-admitted 2");
  }

  @Test
  void ratioTarget_sluiceNotRun_saysNotRun() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.notRun(OWNER_PATH, "client-sdk not landed"));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), OWNER_PATH, List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict()).startsWith("not run:");
  }

  @Test
  void write_oneScenario_writesTablesRatiosAndPlots(@TempDir Path dir) throws Exception {
    ScenarioResult s = new ScenarioResult("S2", "Client", "setup words");
    s.add(ContenderRun.measured(OWNER_PATH, List.of(round(300_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));
    s.add(ContenderRun.notRun("Redis + Lua", "redis-server is not installed"));
    Report report = new Report().header("- Command: `x`").scenario(s);
    report.memory(MemoryRow.notRun("Sluice (LocalMapStats)", "grid not landed"));
    Path doc = dir.resolve("docs/benchmarks.md");

    report.write(doc, dir.resolve("docs/img"));

    String md = Files.readString(doc);
    assertThat(md)
        .contains("| " + OWNER_PATH + " | 300,000 | not counted |")
        .contains("| Redis + Lua | not run: redis-server is not installed")
        .contains("Like for like, Sluice over the peer: **" + OWNER_PATH + "**: 3.00× Bucket4j")
        .contains("](img/bench-s2-throughput.png)")
        .contains("not run: grid not landed");
    assertThat(BenchmarksPage.blocks(md))
        .containsOnlyKeys(BenchmarksPage.slots(BenchmarksPage.template()));
    assertThat(dir.resolve("docs/img/bench-s2-throughput.png")).isNotEmptyFile();
    assertThat(dir.resolve("docs/img/bench-s2-latency.png")).isNotEmptyFile();
  }

  @Test
  void write_overAdmissionCountedElsewhere_saysWhereInsteadOfNotCounted(@TempDir Path dir)
      throws Exception {
    ScenarioResult counted = new ScenarioResult("S9", "Redis", "setup words");
    counted.add(ContenderRun.measured("Sluice CL.THROTTLE", List.of(round(300_000, 50, 0))));
    counted.overAdmissionCountedElsewhere("Counted in S9s below.");
    ScenarioResult plain = new ScenarioResult("S2", "Client", "setup words");
    plain.add(ContenderRun.measured("Sluice client", List.of(round(300_000, 50, 0))));
    Path doc = dir.resolve("benchmarks.md");

    new Report().scenario(counted).scenario(plain).write(doc, dir.resolve("img"));

    String md = Files.readString(doc);
    String s9 = md.substring(md.indexOf("### S9"), md.indexOf("### S2"));
    assertThat(s9).contains("Counted in S9s below.").doesNotContain(Report.NOT_COUNTED);
    assertThat(md.substring(md.indexOf("### S2"))).contains(Report.NOT_COUNTED);
  }

  @Test
  void write_scenarioWithItsOwnTable_printsItInsteadOfTheContenderRows(@TempDir Path dir)
      throws Exception {
    ScenarioResult regions = new ScenarioResult("S10", "Regions", "setup words");
    regions.table("| design | a: decisions/s |\n|---|---:|\n| in the region | 300 |\n");
    regions.note("a note");
    Path doc = dir.resolve("benchmarks.md");

    new Report().scenario(regions).write(doc, dir.resolve("img"));

    String md = Files.readString(doc);
    String s10 = md.substring(md.indexOf("### S10"), md.indexOf("### S6"));
    assertThat(s10)
        .contains("setup words\n\n| design | a: decisions/s |", "| in the region | 300 |")
        .contains("- a note")
        .doesNotContain("| contender |");
  }

  @Test
  void contenderRun_exactness_sumsRoundsAndGivesTheMedianAdmissionRate() {
    ContenderRun run =
        ContenderRun.measured(
            "x", List.of(judged(10_000, 1_000, 0, ""), judged(20_000, 3_000, 7, "z0")));

    assertThat(run.medianAdmitted()).isEqualTo(2_000);
    assertThat(run.exactness()).isPresent();
    assertThat(run.exactness().get().overAdmitted()).isEqualTo(7);
    assertThat(run.exactness().get().admitted()).isEqualTo(4_000);
    assertThat(run.exactness().get().worstKey()).isEqualTo("z0");
  }

  @Test
  void write_exactnessCounted_putsAdmittedAndOverAdmittedBesideThroughput(@TempDir Path dir)
      throws Exception {
    ScenarioResult s = new ScenarioResult("S7", "Skewed keys", "");
    s.add(ContenderRun.measured("Sluice client", "client", List.of(judged(50_000, 20_000, 0, ""))));
    s.add(
        ContenderRun.measured(
            "Bucket4j client (delaying, 4 holders)",
            "client",
            List.of(judged(100_000, 21_000, 420, "z0"))));
    s.add(
        ContenderRun.measured(
            "Sluice embedded", "embedded", List.of(judged(90_000, 30_000, 0, ""))));
    s.add(
        ContenderRun.measured(
            "Sluice embedded (leases off)", "embedded", List.of(judged(80_000, 30_000, 0, ""))));
    s.add(
        ContenderRun.measured(
            "Bucket4j embedded", "embedded", List.of(judged(60_000, 29_000, 0, ""))));
    Path doc = dir.resolve("benchmarks.md");

    new Report().scenario(s).write(doc, dir.resolve("img"));

    String md = Files.readString(doc);
    assertThat(md)
        .contains("| contender | decisions/s | over-admitted | admitted/s | answered locally |")
        .contains("| Sluice client | 50,000 | 0 | 20,000 |")
        .contains(
            "| Bucket4j client (delaying, 4 holders) | 100,000 | **420** (2.00 % of admitted) |"
                + " 21,000 |")
        .contains("most on `z0` (420)")
        .contains("100.00 % of admissions judged")
        .contains("**Sluice client**: 0.50× Bucket4j client (delaying, 4 holders) (p99 1.00×)")
        .contains("**Sluice embedded (leases off)**: 1.33× Bucket4j embedded (p99 1.00×)")
        .contains("](img/bench-s7-exactness.png)");
    assertThat(Report.ratios(s))
        .noneMatch(line -> line.startsWith("**Sluice embedded**"))
        .noneMatch(
            line -> line.contains("Bucket4j embedded") && line.startsWith("**Sluice client"));
    assertThat(dir.resolve("img/bench-s7-exactness.png")).isNotEmptyFile();
  }

  @Test
  void exact_sluiceOverAdmitted_missesATargetItsThroughputMet() {
    ScenarioResult s = new ScenarioResult("S7", "skewed", "");
    s.add(ContenderRun.measured(OWNER_PATH, List.of(judged(300_000, 1_000, 3, "z1"))));
    s.add(ContenderRun.measured("Redis + Lua", List.of(judged(100_000, 1_000, 0, ""))));
    TargetRow ratio =
        Targets.ratioTarget(
            "L3", "t", Optional.of(s), OWNER_PATH, List.of("Redis + Lua"), 2.0, Double.NaN);

    TargetRow row = Targets.exact(ratio, Optional.of(s), OWNER_PATH);

    assertThat(ratio.verdict()).isEqualTo("met");
    assertThat(row.measured())
        .isEqualTo("3.00× Redis + Lua (300,000 vs 100,000 /s, over-admitted 3 vs 0)");
    assertThat(row.verdict()).isEqualTo("**MISSED**: over-admitted 3");
  }

  @Test
  void exactOnly_everySluiceRowExact_isMet_andNamesEachRow() {
    ScenarioResult s = new ScenarioResult("S3s", "saturated", "");
    s.add(ContenderRun.measured("Sluice client", List.of(judged(1_000, 10, 0, ""))));
    s.add(ContenderRun.measured("Sluice client (token_bucket)", List.of(judged(1_000, 10, 0, ""))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(judged(1_000, 10, 5, "hot"))));

    TargetRow row = Targets.exactOnly("L2", "t", Optional.of(s));

    assertThat(row.verdict()).isEqualTo("met");
    assertThat(row.measured()).isEqualTo("Sluice client 0; Sluice client (token_bucket) 0");
  }

  @Test
  void write_extraAfterAScenario_comesRightAfterItsTable(@TempDir Path dir) throws Exception {
    ScenarioResult s1 = new ScenarioResult("S1", "Embedded", "");
    s1.add(ContenderRun.measured("Sluice embedded", List.of(round(1_000, 5, 0))));
    ScenarioResult s2 = new ScenarioResult("S2", "Client", "");
    Report report = new Report().scenario(s1).scenario(s2).extra("S1", "#### S1b table\n");
    Path doc = dir.resolve("benchmarks.md");

    report.write(doc, dir.resolve("img"));

    String md = Files.readString(doc);
    assertThat(md.indexOf("#### S1b table")).isGreaterThan(md.indexOf("### S1 Embedded"));
    assertThat(md.indexOf("#### S1b table")).isLessThan(md.indexOf("### S2 Client"));
  }
}
