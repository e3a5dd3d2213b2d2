package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.AdmissionBound;
import dev.sluice.bench.load.exactness.Exactness;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.core.grid.region.Regions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * S10: one global rule across two regions, each region's link to home 50 ms long (docs/multi-
 * region.md). A home grid and two regions run as separate clusters of two members each on loopback
 * ({@link Regions}, the clusters limiter-core's region tests judge), every region member reaching
 * home through a proxy that delays each byte 25 ms each way. Both regions load the same Zipf keys
 * of {@link BenchRule#GLOBAL} at once, and two designs take turns, round by round:
 *
 * <ul>
 *   <li><b>decided in the region</b>: the region's members answer from the budget home leased to
 *       the region (the key's owner in the region holds it), and go home only when it is spent;
 *   <li><b>every decision to home</b>: each region member sends every check to home's grid over the
 *       same proxy (its link's Hazelcast client of home, leases off).
 * </ul>
 *
 * Per region: decisions per second, p50 and p99 on the calling thread, and the share answered in
 * the region (from the budget, or a denial the region remembered); per design, the admissions over
 * the rule's bound per key per window, judged over both regions' admissions together, and the
 * hottest key's admissions per second: that key is asked far more often than its limit in both
 * designs, so an exact limiter gives it its limit, and less is what a design's strictness costs.
 *
 * <p>Run: {@code benchmarks/run.sh --only S10} (about a minute and a half; {@code --quick}: a few
 * seconds), written to {@code benchmarks/target/benchmarks-only.md}.
 */
final class RegionScenario implements Scenario {
  static final long ROUND_TRIP_MILLIS = 50;

  /** Members per cluster: home and each region. */
  static final int MEMBERS = 2;

  static final int THREADS_PER_REGION = 32;

  /** No round goes on beyond this many decisions in a region, whatever its duration. */
  static final long MAX_OPS_PER_REGION = 500_000;

  /**
   * How long a check waits for home before the rule's {@code fail_closed} answers (counted as an
   * error here): long enough that a loaded shared machine measures waits, not the failure policy.
   */
  static final Duration HOME_TIMEOUT = Duration.ofSeconds(2);

  static final List<String> REGIONS = List.of("a", "b");

  static final KeySpace KEYS = KeySpace.zipf("customer-", 100, 1.1);

  /** A design: its name and the contender of each load thread. */
  private record Design(String name, IntFunction<Contender> contenderOf) {}

  /** What a design measured: per region its rounds, and exactness over both regions. */
  private record Measured(
      Design design,
      List<List<RoundResult>> byRegion,
      List<Exactness> judged,
      List<Double> hottestAdmittedByRound) {
    ContenderRun region(int region) {
      return ContenderRun.measured(design.name(), byRegion.get(region));
    }

    Optional<Exactness> exactness() {
      return judged.stream().reduce(Exactness::plus);
    }

    /** The median round's admissions per second of the hottest key, both regions together. */
    double hottestAdmittedPerSecond() {
      List<Double> sorted = hottestAdmittedByRound.stream().sorted().toList();
      return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }
  }

  @Override
  public String id() {
    return "S10";
  }

  @Override
  public void run(BenchContext context) throws Exception {
    BenchSettings settings = context.settings();
    BenchRule rule = BenchRule.GLOBAL;
    ScenarioResult s =
        new ScenarioResult(
            "S10",
            "Two regions, one global rule, 50 ms to home",
            String.format(
                Locale.ROOT,
                "A home grid and two regions, separate clusters of %d members each on 127.0.0.1,"
                    + " every region member reaching home through a proxy that delays each byte"
                    + " %d ms each way. Rule %s, `scope: global` (`fail_closed`, home timeout %d"
                    + " s: a check that fails counts as an error). %d threads per region at once"
                    + " (closed loop, at most %,d decisions per region per round) on %s, the same"
                    + " keys from both regions. **Decided in the region**: the regions' members"
                    + " answer from the budget home leased to the region, and go home when it is"
                    + " spent. **Every decision to home**: each region member sends every check"
                    + " to home's grid over the same proxy (a Hazelcast client of home, leases"
                    + " off). Latency on the calling thread in milliseconds; answered in the"
                    + " region: from the region's budget or a denial the region remembered, with"
                    + " no round trip to home. Over-admitted: admissions over the rule's bound per"
                    + " key per window, judged over both regions' admissions together. The"
                    + " hottest key is asked far more often than its limit in both designs: an"
                    + " exact limiter admits its limit per second, and less is what a design's"
                    + " strictness costs it.",
                MEMBERS,
                ROUND_TRIP_MILLIS / 2,
                rule.describe(),
                HOME_TIMEOUT.toSeconds(),
                THREADS_PER_REGION,
                MAX_OPS_PER_REGION,
                KEYS.description()));
    List<Measured> measured;
    try (Regions regions = Regions.start(MEMBERS, ROUND_TRIP_MILLIS, HOME_TIMEOUT)) {
      regions.put(rule.rule());
      measured = measure(settings, designs(regions, rule));
      s.note(howTheRegionsAnswered(regions.links));
    } catch (Exception | LinkageError e) {
      s.add(ContenderRun.notRun("Sluice, global rule (S10)", Measurement.reason(e)));
      context.report().scenario(s);
      return;
    }
    s.table(table(measured));
    for (Measured m : measured) {
      for (int r = 0; r < REGIONS.size(); r++) {
        ContenderRun run = m.region(r);
        System.out.println("S10 region " + REGIONS.get(r) + " " + run);
        if (run.total(Outcome.ERROR) > 0) {
          s.note(
              String.format(
                  Locale.ROOT,
                  "%s, region %s: **errors %.2f %%** (%s)",
                  m.design().name(),
                  REGIONS.get(r),
                  run.errorShare() * 100,
                  run.firstError()));
        }
      }
    }
    context.report().scenario(s);
  }

  /**
   * The two designs on the same clusters, each with keys of its own: thread {@code t} loads region
   * {@code t / THREADS_PER_REGION} through one of its members, in turn.
   */
  private static List<Design> designs(Regions regions, BenchRule rule) {
    List<List<? extends RateLimiter>> inRegion = List.of(regions.limitersA, regions.limitersB);
    List<List<RateLimiter>> toHome = new ArrayList<>();
    for (int r = 0; r < REGIONS.size(); r++) {
      List<RateLimiter> homeClients = new ArrayList<>();
      for (int m = 0; m < MEMBERS; m++) {
        // The links in order of the members: region a's, then region b's.
        homeClients.add(regions.links.get(r * MEMBERS + m).home());
      }
      toHome.add(homeClients);
    }
    return List.of(
        design("Sluice, decided in the region", inRegion, rule),
        design("Every decision to home", toHome, rule));
  }

  private static Design design(
      String name, List<? extends List<? extends RateLimiter>> byRegion, BenchRule rule) {
    String keyPrefix = ContenderKeys.prefix();
    List<Contender> contenders = new ArrayList<>();
    for (int t = 0; t < REGIONS.size() * THREADS_PER_REGION; t++) {
      List<? extends RateLimiter> members = byRegion.get(t / THREADS_PER_REGION);
      contenders.add(
          new SluiceContenders.LimiterContender(
              name, members.get(t % members.size()), rule, keyPrefix, () -> {}));
    }
    return new Design(name, contenders::get);
  }

  /**
   * A warm-up of each design, then the measured rounds interleaved (round 1 of each, then round 2,
   * ...), each after a lead-in that is judged but not measured.
   */
  private static List<Measured> measure(BenchSettings settings, List<Design> designs) {
    AdmissionBound bound = AdmissionBound.of(BenchRule.GLOBAL.policy());
    int threads = REGIONS.size() * THREADS_PER_REGION;
    long opsPerThread = MAX_OPS_PER_REGION / THREADS_PER_REGION;
    List<Measured> measured = new ArrayList<>();
    for (Design design : designs) {
      LoadDriver.Threads.run(
          design.contenderOf(),
          threads,
          KEYS,
          null,
          Duration.ZERO,
          settings.warmup(),
          opsPerThread);
      List<List<RoundResult>> byRegion = new ArrayList<>();
      REGIONS.forEach(region -> byRegion.add(new ArrayList<>()));
      measured.add(new Measured(design, byRegion, new ArrayList<>(), new ArrayList<>()));
    }
    for (int round = 0; round < settings.rounds(); round++) {
      for (Measured m : measured) {
        LoadDriver.Threads ran =
            LoadDriver.Threads.run(
                m.design().contenderOf(),
                threads,
                KEYS,
                bound,
                settings.round().dividedBy(5),
                settings.round(),
                opsPerThread);
        for (int r = 0; r < REGIONS.size(); r++) {
          m.byRegion()
              .get(r)
              .add(ran.result(r * THREADS_PER_REGION, (r + 1) * THREADS_PER_REGION, null));
        }
        m.judged().add(ran.exactness());
        m.hottestAdmittedByRound().add(ran.firstKeyAdmittedPerSecond());
      }
    }
    return measured;
  }

  /**
   * What the regions' links counted over the run (warm-ups included; only the design decided in the
   * region goes through them): why a check waited on home or not.
   */
  private static String howTheRegionsAnswered(List<RegionLink> links) {
    long budget = 0;
    long paced = 0;
    long denial = 0;
    long home = 0;
    for (RegionLink link : links) {
      RegionLink.Statistics statistics = link.statistics();
      budget += statistics.answeredFromBudget();
      paced += statistics.deniedUntilUsable();
      denial += statistics.answeredFromDenial();
      home += statistics.waitedOnHome();
    }
    return String.format(
        Locale.ROOT,
        "Decided in the region, both regions, warm-ups included: %,d checks answered from the"
            + " region's budget, %,d denied in the region until the budget's paced permits were"
            + " usable, %,d denied in the region from home's last denial of the key, %,d waited on"
            + " home (a key with no budget held: its grant ended with its window, or at its limit"
            + " with no paced permits held and home's denial run out).",
        budget,
        paced,
        denial,
        home);
  }

  /** One row per design: per region throughput, p50 / p99 and the share answered there. */
  private static String table(List<Measured> measured) {
    StringBuilder md = new StringBuilder("| design |");
    for (String region : REGIONS) {
      md.append(
          String.format(
              Locale.ROOT,
              " %1$s: decisions/s | %1$s: p50 / p99 ms | %1$s: answered in the region |",
              region));
    }
    md.append(
        " over-admitted (both regions) | denied | hottest key admitted/s (both regions) |\n|---|");
    md.append("---:|---:|---:|".repeat(REGIONS.size())).append("---:|---:|---:|\n");
    for (Measured m : measured) {
      md.append("| ").append(m.design().name()).append(" |");
      long operations = 0;
      long denied = 0;
      for (int r = 0; r < REGIONS.size(); r++) {
        ContenderRun run = m.region(r);
        operations += run.totalOperations();
        denied += run.total(Outcome.DENIED) + run.total(Outcome.DENIED_LOCALLY);
        md.append(
            String.format(
                Locale.ROOT,
                " %,.0f | %.2f / %.2f | %.1f %% |",
                run.medianThroughput(),
                run.medianPercentileMicros(50) / 1_000,
                run.medianPercentileMicros(99) / 1_000,
                run.localShare() * 100));
      }
      md.append(' ')
          .append(overAdmitted(m.exactness()))
          .append(
              String.format(
                  Locale.ROOT,
                  " | %.1f %% | %,.0f |%n",
                  100.0 * denied / Math.max(1, operations),
                  m.hottestAdmittedPerSecond()));
    }
    return md.toString();
  }

  /** {@code 0 (98.1 % of 12,345 admissions judged)}, or the count over in bold. */
  private static String overAdmitted(Optional<Exactness> judged) {
    if (judged.isEmpty()) {
      return Report.NOT_COUNTED;
    }
    Exactness e = judged.get();
    String over =
        e.overAdmitted() == 0
            ? "0"
            : String.format(Locale.ROOT, "**%,d** on %d key(s)", e.overAdmitted(), e.keysOver());
    return String.format(
        Locale.ROOT,
        "%s (%.1f %% of %,d admissions judged)",
        over,
        100 * e.judgedShare(),
        e.admitted());
  }
}
