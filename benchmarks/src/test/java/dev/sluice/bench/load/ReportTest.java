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
    s.add(ContenderRun.measured("Sluice client", List.of(round(300_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), "Sluice client", List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict()).isEqualTo("met");
    assertThat(row.measured()).startsWith("3.00× Bucket4j client");
  }

  @Test
  void ratioTarget_shortOfTheRatioAndSlowerP99_saysByHowMuch() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.measured("Sluice client", List.of(round(150_000, 90, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), "Sluice client", List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict())
        .contains("MISSED")
        .contains("throughput 1.50× is 25 % short of 2.00×")
        .contains("p99 1.50× is above 1.00×");
  }

  @Test
  void ratioTarget_aMissByLessThanTheLastDigit_printsTheDigitThatShowsIt() {
    ScenarioResult s = new ScenarioResult("S7", "skewed", "");
    s.add(ContenderRun.measured("Sluice client", List.of(round(119_700, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client (delaying)", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "L4",
            "t",
            Optional.of(s),
            "Sluice client",
            List.of("Bucket4j client (delaying)"),
            1.2,
            Double.NaN);

    assertThat(row.measured()).startsWith("1.197× Bucket4j client (delaying)");
    assertThat(row.verdict()).contains("throughput 1.197× is 0.25 % short of 1.20×");
  }

  @Test
  void ratioTarget_comparesWithTheBestPeerMode() {
    ScenarioResult s = new ScenarioResult("S3", "hot", "");
    s.add(ContenderRun.measured("Sluice client", List.of(round(500_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(50_000, 60, 0))));
    s.add(ContenderRun.measured("Bucket4j client (batching)", List.of(round(200_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P6",
            "t",
            Optional.of(s),
            "Sluice client",
            List.of("Bucket4j client", "Bucket4j client (batching)"),
            5.0,
            Double.NaN);

    assertThat(row.measured()).startsWith("2.50× Bucket4j client (batching)");
    assertThat(row.verdict()).contains("MISSED").contains("50 % short of 5.00×");
  }

  @Test
  void ratioTarget_sluiceNotRun_saysNotRun() {
    ScenarioResult s = new ScenarioResult("S2", "client", "");
    s.add(ContenderRun.notRun("Sluice client", "client-sdk not landed"));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));

    TargetRow row =
        Targets.ratioTarget(
            "P2", "t", Optional.of(s), "Sluice client", List.of("Bucket4j client"), 2.0, 1.0);

    assertThat(row.verdict()).startsWith("not run:");
  }

  @Test
  void merge_existingDocWithOtherSections_replacesOnlyTheMarkedSection() {
    String old =
        "# Benchmarks\n\n## JMH\n\nkeep me\n\n"
            + Report.BEGIN
            + "\nold table\n"
            + Report.END
            + "\n\n## Later\n\nkeep me too\n";

    String merged = Report.merge(old, Report.BEGIN + "\nnew table\n" + Report.END + "\n");

    assertThat(merged)
        .contains("## JMH\n\nkeep me")
        .contains("new table")
        .doesNotContain("old table")
        .contains("## Later\n\nkeep me too");
  }

  @Test
  void merge_docWithoutMarkers_appendsTheSection() {
    String merged =
        Report.merge("# Benchmarks\n\n## JMH\n\nkeep me\n", Report.BEGIN + "\nt\n" + Report.END);

    assertThat(merged).startsWith("# Benchmarks\n\n## JMH\n\nkeep me\n\n" + Report.BEGIN);
  }

  @Test
  void write_oneScenario_writesTablesRatiosAndPlots(@TempDir Path dir) throws Exception {
    ScenarioResult s = new ScenarioResult("S2", "Client", "setup words");
    s.add(ContenderRun.measured("Sluice client", List.of(round(300_000, 50, 0))));
    s.add(ContenderRun.measured("Bucket4j client", List.of(round(100_000, 60, 0))));
    s.add(ContenderRun.notRun("Redis + Lua", "redis-server is not installed"));
    Report report = new Report().header("- Command: `x`").scenario(s);
    report.memory(MemoryRow.notRun("Sluice (LocalMapStats)", "grid not landed"));
    Path doc = dir.resolve("docs/benchmarks.md");

    report.write(doc, dir.resolve("docs/img"));

    String md = Files.readString(doc);
    assertThat(md)
        .contains("| Sluice client | 300,000 |")
        .contains("| Redis + Lua | not run: redis-server is not installed")
        .contains("| Sluice client / Bucket4j client | 3.00× | 0.83× |")
        .contains("](img/bench-s2-throughput.png)")
        .contains("not run: grid not landed");
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
            "Sluice embedded", "embedded", List.of(judged(80_000, 30_000, 0, ""))));
    s.add(
        ContenderRun.measured(
            "Bucket4j embedded", "embedded", List.of(judged(60_000, 29_000, 0, ""))));
    Path doc = dir.resolve("benchmarks.md");

    new Report().scenario(s).write(doc, dir.resolve("img"));

    String md = Files.readString(doc);
    assertThat(md)
        .contains(
            "| contender | decisions/s (median) | admitted/s (median) | over-admitted (all rounds) |")
        .contains("| Sluice client | 50,000 | 20,000 | 0 |")
        .contains(
            "| Bucket4j client (delaying, 4 holders) | 100,000 | 21,000 | **420** (2.00 % of"
                + " admitted) |")
        .contains("most on `z0` (420)")
        .contains("100.00 % of admissions judged")
        .contains("| Sluice client / Bucket4j client (delaying, 4 holders) | 0.50× |")
        .contains("| Sluice embedded / Bucket4j embedded | 1.33× |")
        .doesNotContain("Sluice client / Bucket4j embedded")
        .doesNotContain("Sluice embedded / Bucket4j client")
        .contains("](img/bench-s7-exactness.png)");
    assertThat(dir.resolve("img/bench-s7-exactness.png")).isNotEmptyFile();
  }

  @Test
  void exact_sluiceOverAdmitted_missesATargetItsThroughputMet() {
    ScenarioResult s = new ScenarioResult("S7", "skewed", "");
    s.add(ContenderRun.measured("Sluice client", List.of(judged(300_000, 1_000, 3, "z1"))));
    s.add(ContenderRun.measured("Redis + Lua", List.of(judged(100_000, 1_000, 0, ""))));
    TargetRow ratio =
        Targets.ratioTarget(
            "L3", "t", Optional.of(s), "Sluice client", List.of("Redis + Lua"), 2.0, Double.NaN);

    TargetRow row = Targets.exact(ratio, Optional.of(s), "Sluice client");

    assertThat(ratio.verdict()).isEqualTo("met");
    assertThat(row.measured()).endsWith("; over-admitted 3");
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
