package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The performance targets, judged on this run's figures: P1..P7 (P4 once per load generator) for
 * the paths through Sluice, L1..L5 for hot and skewed keys, R1..R5 for the Redis port. A target
 * compares like with like ({@link LikeForLike}): the same measure of a peer in the same scenario
 * and group. Where the peer goes to the key's owner on every call (Bucket4j plain or embedded,
 * Redis + Lua), the target is judged on Sluice's owner path (leases off), and Sluice's default
 * (leases on) stands beside the verdict as what a user gets; where the peer answers in the caller
 * too (Bucket4j {@code delaying}), it is judged on the default.
 */
final class Targets {
  /** Sluice's defaults: leases on ({@link Contenders}). */
  static final String SLUICE_CLIENT = "Sluice client " + Contenders.leasesLabel(true);

  static final String SLUICE_EMBEDDED = "Sluice embedded " + Contenders.leasesLabel(true);

  /** Sluice's owner path: every decision at the key's owner. */
  static final String SLUICE_CLIENT_OWNER = "Sluice client " + Contenders.leasesLabel(false);

  static final String SLUICE_EMBEDDED_OWNER = "Sluice embedded " + Contenders.leasesLabel(false);

  private Targets() {}

  static void judge(Report report, BenchSettings settings) {
    Optional<ScenarioResult> s1 = report.scenario("S1");
    Optional<ScenarioResult> s2 = report.scenario("S2");
    Optional<ScenarioResult> s3 = report.scenario("S3");
    Optional<ScenarioResult> s3s = report.scenario("S3s");
    Optional<ScenarioResult> s4 = report.scenario("S4");
    Optional<ScenarioResult> s5 = report.scenario("S5");
    Optional<ScenarioResult> s7 = report.scenario("S7");
    report.target(
        beside(
            ratioTarget(
                "P1",
                "embedded ≥ 2× Bucket4j",
                s1,
                SLUICE_EMBEDDED_OWNER,
                List.of("Bucket4j embedded"),
                2.0,
                Double.NaN),
            s1,
            SLUICE_EMBEDDED));
    report.target(
        beside(
            ratioTarget(
                "P2",
                "client ≥ 2× Bucket4j client, p99 no worse",
                s2,
                SLUICE_CLIENT_OWNER,
                List.of("Bucket4j client"),
                2.0,
                1.0),
            s2,
            SLUICE_CLIENT));
    report.target(
        beside(
            ratioTarget(
                "P3",
                "client ≥ 1.5× Redis + Lua",
                s2,
                SLUICE_CLIENT_OWNER,
                List.of("Redis + Lua"),
                1.5,
                Double.NaN),
            s2,
            SLUICE_CLIENT));
    report.target(
        ratioTarget(
            "P4",
            "REST ≥ 60 % of the ceiling, p99 ≤ 2× its p99 (Java driver)",
            s5,
            "Sluice REST (grid node)",
            List.of("HTTP ceiling (bare Javalin)"),
            0.6,
            2.0));
    report.target(
        ratioTarget(
            "P4w",
            "the same with wrk as the load generator",
            s5,
            "Sluice REST (grid node), wrk",
            List.of("HTTP ceiling (bare Javalin), wrk"),
            0.6,
            2.0));
    report.target(localTarget(s4));
    report.target(
        ratioTarget(
            "P6",
            "hot key ≥ 5× Bucket4j (its fastest mode)",
            s3,
            SLUICE_CLIENT,
            bucket4jClientModes(s3),
            5.0,
            Double.NaN));
    report.target(memoryTarget(report, settings));

    report.target(
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
    report.target(exactOnly("L2", "hot key saturated: 0 over-admitted", s3s));
    report.target(
        beside(
            exact(
                ratioTarget(
                    "L3",
                    "skewed keys, client ≥ 2× Redis + Lua, 0 over-admitted",
                    s7,
                    SLUICE_CLIENT_OWNER,
                    List.of("Redis + Lua"),
                    2.0,
                    Double.NaN),
                s7,
                SLUICE_CLIENT_OWNER),
            s7,
            SLUICE_CLIENT));
    report.target(
        ratioTarget(
            "L4",
            "skewed keys, client ≥ 1.2× Bucket4j's fastest mode",
            s7,
            SLUICE_CLIENT,
            bucket4jClientModes(s7),
            1.2,
            Double.NaN));
    report.target(
        beside(
            exact(
                ratioTarget(
                    "L5",
                    "skewed keys, embedded ≥ 1.2× Bucket4j embedded, 0 over-admitted",
                    s7,
                    SLUICE_EMBEDDED_OWNER,
                    List.of("Bucket4j embedded"),
                    1.2,
                    Double.NaN),
                s7,
                SLUICE_EMBEDDED_OWNER),
            s7,
            SLUICE_EMBEDDED));

    // The Redis port (S9): redis-benchmark against CL.THROTTLE and against Redis + a Lua GCRA
    // script, the same binary and flags; both go to the key's owner on every command (no lease
    // answers a RESP command in the caller), so the ratio compares like with like. Over-admission
    // is counted in the saturating run S9s.
    Optional<ScenarioResult> s9 = report.scenario("S9");
    Optional<ScenarioResult> s9s = report.scenario("S9s");
    int id = 1;
    for (RespScenario.Variant variant : RespScenario.VARIANTS) {
      double ratio = variant.pipeline() > 1 ? 1.5 : 1.0;
      report.target(
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
    report.target(exactOnly("R" + id, "CL.THROTTLE saturated: 0 over-admitted", s9s));
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
    if (sluice.isEmpty()) {
      return new TargetRow(id, target, "", "not run: " + sluiceName + " did not run");
    }
    Optional<ContenderRun> peer =
        peers.stream()
            .map(name -> scenario.get().run(name))
            .flatMap(Optional::stream)
            .filter(run -> LikeForLike.comparable(sluice.get(), run))
            .max(Comparator.comparingDouble(ContenderRun::medianThroughput));
    if (peer.isEmpty()) {
      return new TargetRow(
          id,
          target,
          "",
          "not run: no peer that compares with "
              + sluiceName
              + " ran ("
              + String.join(" / ", peers)
              + ")");
    }
    double ratio = sluice.get().medianThroughput() / peer.get().medianThroughput();
    double p99Ratio =
        sluice.get().medianPercentileMicros(99)
            / Math.max(0.001, peer.get().medianPercentileMicros(99));
    StringBuilder measured =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s× %s (%,.0f vs %,.0f /s, over-admitted %s vs %s)",
                besideBound(ratio, minRatio),
                peer.get().name(),
                sluice.get().medianThroughput(),
                peer.get().medianThroughput(),
                overAdmitted(sluice.get()),
                overAdmitted(peer.get())));
    List<String> misses = new ArrayList<>();
    if (ratio < minRatio) {
      misses.add(
          String.format(
              Locale.ROOT,
              "throughput %s× is below %.2f×",
              besideBound(ratio, minRatio),
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

  /**
   * What {@code run} admitted over its bound in all measured rounds, or "not counted" where the
   * scenario does not judge admissions: printed beside every throughput of a target row, Sluice's
   * and the peer's, so a fast figure never stands without its exactness.
   */
  static String overAdmitted(ContenderRun run) {
    return run.exactness()
        .map(exactness -> String.format(Locale.ROOT, "%,d", exactness.overAdmitted()))
        .orElse("not counted");
  }

  /**
   * {@code row}, also missed when {@code sluiceName} over-admitted in {@code scenario} (the count
   * is in the row already, beside the throughput).
   */
  static TargetRow exact(TargetRow row, Optional<ScenarioResult> scenario, String sluiceName) {
    Optional<Exactness> exactness =
        scenario.flatMap(s -> s.run(sluiceName)).flatMap(ContenderRun::exactness);
    if (row.verdict().startsWith("not run") || exactness.isEmpty()) {
      return row;
    }
    long over = exactness.get().overAdmitted();
    if (over == 0) {
      return row;
    }
    String miss = String.format(Locale.ROOT, "over-admitted %,d", over);
    String verdict =
        row.verdict().equals("met") ? "**MISSED**: " + miss : row.verdict() + "; " + miss;
    return new TargetRow(row.id(), row.target(), row.measured(), verdict);
  }

  /**
   * {@code row}, judged on the owner path, with Sluice's default row {@code leasedName} beside it
   * as what a user gets: its throughput, the share it answered in the caller and its over-admission
   * ("not counted" where the scenario does not judge admissions), which also misses the target when
   * it is not 0. Never a ratio: the peer goes to the owner on every call.
   */
  static TargetRow beside(TargetRow row, Optional<ScenarioResult> scenario, String leasedName) {
    Optional<ContenderRun> leased = scenario.flatMap(s -> s.run(leasedName));
    if (leased.isEmpty()) {
      return row;
    }
    ContenderRun run = leased.get();
    StringBuilder measured =
        new StringBuilder(row.measured().isEmpty() ? "" : row.measured() + "; ")
            .append(
                String.format(
                    Locale.ROOT,
                    "leases on (what a user gets): %,.0f /s, %.2f %% answered locally,"
                        + " over-admitted %s",
                    run.medianThroughput(),
                    run.localShare() * 100,
                    overAdmitted(run)));
    String verdict = row.verdict();
    if (run.exactness().isPresent()) {
      long over = run.exactness().get().overAdmitted();
      if (over > 0 && !verdict.startsWith("not run")) {
        String miss = String.format(Locale.ROOT, "%s over-admitted %,d", leasedName, over);
        verdict = verdict.equals("met") ? "**MISSED**: " + miss : verdict + "; " + miss;
      }
    }
    return new TargetRow(row.id(), row.target(), measured.toString(), verdict);
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
