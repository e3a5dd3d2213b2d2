package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The performance targets, judged on this run's figures: issue 7's P1..P7 (P4 once per load
 * generator), issue 18's targets for hot and skewed keys, judged on Sluice with leases on (its
 * default; the leases-off rows are reported beside them), and issue 32's for the Redis port, once
 * per redis-benchmark load shape, each with the over-admission of the saturating run. A target
 * compares like with like: the same measure of a peer in the same scenario and the same group.
 */
final class Targets {
  static final String ISSUE_7 = "Targets (issue 7)";
  static final String ISSUE_18 = "Targets for hot and skewed keys (issue 18: Sluice with leases)";
  static final String ISSUE_32 = "Targets for the Redis protocol (issue 32: redis-benchmark, S9)";

  /** The Sluice rows the targets judge: the defaults, leases on ({@link Contenders}). */
  static final String SLUICE_CLIENT = "Sluice client " + Contenders.leasesLabel(true);

  static final String SLUICE_EMBEDDED = "Sluice embedded " + Contenders.leasesLabel(true);

  private Targets() {}

  static void judge(Report report, BenchSettings settings) {
    Optional<ScenarioResult> s1 = report.scenario("S1");
    Optional<ScenarioResult> s2 = report.scenario("S2");
    Optional<ScenarioResult> s3 = report.scenario("S3");
    Optional<ScenarioResult> s3s = report.scenario("S3s");
    Optional<ScenarioResult> s4 = report.scenario("S4");
    Optional<ScenarioResult> s5 = report.scenario("S5");
    Optional<ScenarioResult> s7 = report.scenario("S7");
    Optional<ScenarioResult> s9 = report.scenario("S9");
    Optional<ScenarioResult> s9s = report.scenario("S9s");
    report.target(
        ISSUE_7,
        ratioTarget(
            "P1",
            "embedded ≥ 2× Bucket4j",
            s1,
            SLUICE_EMBEDDED,
            List.of("Bucket4j embedded"),
            2.0,
            Double.NaN));
    report.target(
        ISSUE_7,
        ratioTarget(
            "P2",
            "client ≥ 2× Bucket4j client, p99 no worse",
            s2,
            SLUICE_CLIENT,
            List.of("Bucket4j client"),
            2.0,
            1.0));
    report.target(
        ISSUE_7,
        ratioTarget(
            "P3",
            "client ≥ 1.5× Redis + Lua",
            s2,
            SLUICE_CLIENT,
            List.of("Redis + Lua"),
            1.5,
            Double.NaN));
    report.target(
        ISSUE_7,
        ratioTarget(
            "P4",
            "REST ≥ 60 % of the ceiling, p99 ≤ 2× its p99 (Java driver)",
            s5,
            "Sluice REST (grid node)",
            List.of("HTTP ceiling (bare Javalin)"),
            0.6,
            2.0));
    report.target(
        ISSUE_7,
        ratioTarget(
            "P4w",
            "the same with wrk as the load generator",
            s5,
            "Sluice REST (grid node), wrk",
            List.of("HTTP ceiling (bare Javalin), wrk"),
            0.6,
            2.0));
    report.target(ISSUE_7, localTarget(s4));
    report.target(
        ISSUE_7,
        ratioTarget(
            "P6",
            "hot key ≥ 5× Bucket4j (its fastest mode)",
            s3,
            SLUICE_CLIENT,
            bucket4jClientModes(s3),
            5.0,
            Double.NaN));
    report.target(ISSUE_7, memoryTarget(report, settings));

    report.target(
        ISSUE_18,
        exact(
            ratioTarget(
                "L1",
                "hot key ≥ 10× Bucket4j's fastest mode (a limit nothing reaches), 0 over-admitted",
                s3,
                SLUICE_CLIENT,
                bucket4jClientModes(s3),
                10.0,
                Double.NaN),
            s3,
            SLUICE_CLIENT));
    report.target(ISSUE_18, exactOnly("L2", "hot key saturated: 0 over-admitted", s3s));
    report.target(
        ISSUE_18,
        exact(
            ratioTarget(
                "L3",
                "skewed keys, client ≥ 2× Redis + Lua, 0 over-admitted",
                s7,
                SLUICE_CLIENT,
                List.of("Redis + Lua"),
                2.0,
                Double.NaN),
            s7,
            SLUICE_CLIENT));
    report.target(
        ISSUE_18,
        ratioTarget(
            "L4",
            "skewed keys, client ≥ 1.2× Bucket4j's fastest mode",
            s7,
            SLUICE_CLIENT,
            bucket4jClientModes(s7),
            1.2,
            Double.NaN));
    report.target(
        ISSUE_18,
        exact(
            ratioTarget(
                "L5",
                "skewed keys, embedded ≥ 1.2× Bucket4j embedded, 0 over-admitted",
                s7,
                SLUICE_EMBEDDED,
                List.of("Bucket4j embedded"),
                1.2,
                Double.NaN),
            s7,
            SLUICE_EMBEDDED));

    int id = 1;
    for (RespScenario.Variant variant : RespScenario.VARIANTS) {
      double ratio = variant.pipeline() > 1 ? 1.5 : 1.0;
      report.target(
          ISSUE_32,
          exact(
              ratioTarget(
                  "R" + id++,
                  String.format(
                      Locale.ROOT,
                      "%s: CL.THROTTLE ≥ %.1f× Redis + Lua, p99 no worse, 0 over-admitted (S9s)",
                      variant.label(),
                      ratio),
                  s9,
                  variant.sluice(),
                  List.of(variant.redisLua()),
                  ratio,
                  1.0),
              s9s,
              RespScenario.SLUICE_SATURATED));
    }
    report.target(ISSUE_32, exactOnly("R" + id, "CL.THROTTLE saturated: 0 over-admitted", s9s));
  }

  /** Every Bucket4j client mode that ran in {@code scenario}. */
  static List<String> bucket4jClientModes(Optional<ScenarioResult> scenario) {
    return scenario.stream()
        .flatMap(s -> s.runs().stream())
        .map(ContenderRun::name)
        .filter(name -> name.startsWith("Bucket4j client"))
        .toList();
  }

  /**
   * Sluice's median throughput over the best of {@code peers}, against {@code minRatio}; and, when
   * {@code maxP99Ratio} is a number, Sluice's p99 over that peer's p99 against it.
   */
  static TargetRow ratioTarget(
      String id,
      String target,
      Optional<ScenarioResult> scenario,
      String sluiceName,
      List<String> peers,
      double minRatio,
      double maxP99Ratio) {
    if (scenario.isEmpty()) {
      return new TargetRow(id, target, "", "not run: scenario skipped");
    }
    Optional<ContenderRun> sluice = scenario.get().run(sluiceName);
    Optional<ContenderRun> peer =
        peers.stream()
            .map(name -> scenario.get().run(name))
            .flatMap(Optional::stream)
            .max(Comparator.comparingDouble(ContenderRun::medianThroughput));
    if (sluice.isEmpty() || peer.isEmpty()) {
      String missing = sluice.isEmpty() ? sluiceName : String.join(" / ", peers);
      return new TargetRow(id, target, "", "not run: " + missing + " did not run");
    }
    double ratio = sluice.get().medianThroughput() / peer.get().medianThroughput();
    double p99Ratio =
        sluice.get().medianPercentileMicros(99)
            / Math.max(0.001, peer.get().medianPercentileMicros(99));
    StringBuilder measured =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s× %s (%,.0f vs %,.0f /s)",
                besideBound(ratio, minRatio),
                peer.get().name(),
                sluice.get().medianThroughput(),
                peer.get().medianThroughput()));
    List<String> misses = new ArrayList<>();
    if (ratio < minRatio) {
      misses.add(
          String.format(
              Locale.ROOT,
              "throughput %s× is %s %% short of %.2f×",
              besideBound(ratio, minRatio),
              shortfallPercent(1 - ratio / minRatio),
              minRatio));
    }
    if (!Double.isNaN(maxP99Ratio)) {
      measured.append(
          String.format(
              Locale.ROOT,
              "; p99 %s× (%.0f vs %.0f µs)",
              besideBound(p99Ratio, maxP99Ratio),
              sluice.get().medianPercentileMicros(99),
              peer.get().medianPercentileMicros(99)));
      if (p99Ratio > maxP99Ratio) {
        misses.add(
            String.format(
                Locale.ROOT,
                "p99 %s× is above %.2f×",
                besideBound(p99Ratio, maxP99Ratio),
                maxP99Ratio));
      }
    }
    return new TargetRow(id, target, measured.toString(), verdict(misses));
  }

  /**
   * {@code ratio} to two decimals, or to as many more (up to four) as it takes not to print the
   * {@code bound} it misses or meets: 1.197 against 1.2 reads 1.197, not 1.20, so a miss never
   * reads as the target itself.
   */
  static String besideBound(double ratio, double bound) {
    for (int digits = 2; digits < 4; digits++) {
      String printed = String.format(Locale.ROOT, "%." + digits + "f", ratio);
      if (Double.isNaN(bound)
          || ratio == bound
          || !printed.equals(String.format(Locale.ROOT, "%." + digits + "f", bound))) {
        return printed;
      }
    }
    return String.format(Locale.ROOT, "%.4f", ratio);
  }

  /** A shortfall as a percentage: whole, or to two significant digits below one per cent. */
  static String shortfallPercent(double fraction) {
    double percent = 100 * fraction;
    return String.format(Locale.ROOT, percent < 1 ? "%.2g" : "%.0f", percent);
  }

  /** {@code row}, also missed when {@code sluiceName} over-admitted in {@code scenario}. */
  static TargetRow exact(TargetRow row, Optional<ScenarioResult> scenario, String sluiceName) {
    Optional<Exactness> exactness =
        scenario.flatMap(s -> s.run(sluiceName)).flatMap(ContenderRun::exactness);
    if (row.verdict().startsWith("not run") || exactness.isEmpty()) {
      return row;
    }
    long over = exactness.get().overAdmitted();
    String measured = row.measured() + String.format(Locale.ROOT, "; over-admitted %,d", over);
    if (over == 0) {
      return new TargetRow(row.id(), row.target(), measured, row.verdict());
    }
    String miss = String.format(Locale.ROOT, "over-admitted %,d", over);
    String verdict =
        row.verdict().equals("met") ? "**MISSED**: " + miss : row.verdict() + "; " + miss;
    return new TargetRow(row.id(), row.target(), measured, verdict);
  }

  /** Met when no Sluice contender of {@code scenario} over-admitted. */
  static TargetRow exactOnly(String id, String target, Optional<ScenarioResult> scenario) {
    if (scenario.isEmpty()) {
      return new TargetRow(id, target, "", "not run: scenario skipped");
    }
    List<String> measured = new ArrayList<>();
    List<String> misses = new ArrayList<>();
    for (ContenderRun run : scenario.get().measured()) {
      if (ScenarioResult.isSluice(run) && run.exactness().isPresent()) {
        long over = run.exactness().get().overAdmitted();
        measured.add(String.format(Locale.ROOT, "%s %,d", run.name(), over));
        if (over > 0) {
          misses.add(String.format(Locale.ROOT, "%s over-admitted %,d", run.name(), over));
        }
      }
    }
    if (measured.isEmpty()) {
      return new TargetRow(id, target, "", "not run: no Sluice contender ran");
    }
    return new TargetRow(id, target, String.join("; ", measured), verdict(misses));
  }

  private static String verdict(List<String> misses) {
    return misses.isEmpty() ? "met" : "**MISSED**: " + String.join("; ", misses);
  }

  private static TargetRow localTarget(Optional<ScenarioResult> s4) {
    String target = "attack path ≥ 99 % answered locally";
    Optional<ContenderRun> sluice = s4.flatMap(s -> s.run("Sluice client"));
    if (sluice.isEmpty()) {
      return new TargetRow("P5", target, "", "not run: Sluice client did not run");
    }
    double share = sluice.get().localShare();
    return new TargetRow(
        "P5",
        target,
        String.format(Locale.ROOT, "%.2f %% local", share * 100),
        share >= 0.99
            ? "met"
            : String.format(Locale.ROOT, "**MISSED** by %.2f points", (0.99 - share) * 100));
  }

  private static TargetRow memoryTarget(Report report, BenchSettings settings) {
    String target = "bytes per key ≤ Redis's and ≤ 128 B";
    Optional<MemoryRow> sluice =
        report.memoryRows().stream()
            .filter(m -> m.ran() && m.store().startsWith("Sluice"))
            .findFirst();
    Optional<MemoryRow> redis =
        report.memoryRows().stream()
            .filter(m -> m.ran() && m.store().startsWith("Redis"))
            .findFirst();
    if (sluice.isEmpty()) {
      return new TargetRow("P7", target, "", "not run: Sluice memory not measured");
    }
    double b = sluice.get().bytesPerKey();
    List<String> misses = new ArrayList<>();
    String measured = String.format(Locale.ROOT, "%.0f B", b);
    if (redis.isPresent()) {
      measured += String.format(Locale.ROOT, " vs Redis %.0f B", redis.get().bytesPerKey());
      if (b > redis.get().bytesPerKey()) {
        misses.add(
            String.format(
                Locale.ROOT, "%.0f %% above Redis", 100 * (b / redis.get().bytesPerKey() - 1)));
      }
    } else {
      misses.add("Redis not measured");
    }
    if (b > 128) {
      misses.add(String.format(Locale.ROOT, "%.0f B over 128 B", b - 128));
    }
    if (settings.quick()) {
      measured +=
          " (quick mode, " + String.format(Locale.ROOT, "%,d", sluice.get().keys()) + " keys)";
    }
    return new TargetRow("P7", target, measured, verdict(misses));
  }
}
