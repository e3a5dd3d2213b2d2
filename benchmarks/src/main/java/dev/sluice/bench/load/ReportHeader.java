package dev.sluice.bench.load;

import java.lang.management.ManagementFactory;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The page's {@code run} block: what kind of run it was, how busy the machine was, the command, the
 * date, the machine, versions, JVM flags, the state map settings, and how the load is generated.
 */
final class ReportHeader {
  private ReportHeader() {}

  static void write(
      BenchContext context, long startedNanos, double loadMin, double loadMedian, double loadMax) {
    BenchSettings settings = context.settings();
    Report report = context.report();
    String date =
        ZonedDateTime.now(ZoneOffset.UTC)
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    report.header(
        settings.quick()
            ? "- **Quick mode** (the CI smoke run): "
                + settings.rounds()
                + " rounds of "
                + settings.round().toMillis()
                + " ms after a "
                + settings.warmup().toMillis()
                + " ms warm-up per contender (wrk: whole seconds), and the server JVMs boot in the"
                + " background during S1. These figures only show the harness works; the published"
                + " figures come from the full run."
            : "- **Full run**: per contender a "
                + settings.warmup().toSeconds()
                + " s warm-up, then "
                + settings.rounds()
                + " measured rounds of "
                + settings.round().toSeconds()
                + " s, interleaved across contenders, each after a lead-in of "
                + settings.round().dividedBy(5).toMillis()
                + " ms whose admissions are judged but not counted in the round's figures (wrk's"
                + " rows have none); tables show the median round, the spread of the rounds (±"
                + " half their range, against the median) and over-admissions summed over all"
                + " measured rounds.");
    int cores = Runtime.getRuntime().availableProcessors();
    if (loadMedian > cores) {
      report.header(
          String.format(
              Locale.ROOT,
              "- **This machine was busy with other work during the run** (1-minute load average"
                  + " %.0f to %.0f, median %.0f, on %d cores): every contender got a fraction of"
                  + " the CPUs, so absolute figures are low and latencies long. Ratios from the"
                  + " same run are more robust, but a path with more thread hand-offs (a client,"
                  + " HTTP) loses more to scheduling delay than a short one. Rerun on a quiet"
                  + " machine before quoting any figure.",
              loadMin,
              loadMax,
              loadMedian,
              cores));
    }
    report.header("- Command: `" + settings.command() + "`");
    report.header(
        "- Date: "
            + date
            + String.format(
                Locale.ROOT, " (run took %.0f s)", (System.nanoTime() - startedNanos) / 1e9));
    report.header(
        String.format(
            Locale.ROOT,
            "- Machine: %d cores (load average sampled every 5 s: min %.1f, median %.1f, max %.1f),"
                + " %s %s, %s %s",
            cores,
            loadMin,
            loadMedian,
            loadMax,
            System.getProperty("os.name"),
            System.getProperty("os.arch"),
            System.getProperty("java.vm.name"),
            System.getProperty("java.runtime.version")));
    report.header(
        "- Versions: Hazelcast "
            + Versions.of("hazelcast")
            + ", Bucket4j "
            + Versions.of("bucket4j_jdk17-core")
            + ", Lettuce "
            + Versions.of("lettuce-core")
            + ", Javalin "
            + Versions.of("javalin")
            + ", HdrHistogram "
            + Versions.of("HdrHistogram")
            + ", wrk "
            + WrkRunner.version()
            + ", redis-benchmark "
            + RedisBenchmarkRunner.version());
    report.header(
        "- Server JVMs (grid node, Bucket4j member, ceiling): `"
            + String.join(" ", BenchMembers.SERVER_JVM_FLAGS)
            + "`; load JVM: `"
            + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
            + "`");
    report.header(
        "- State map: backup count "
            + context.stateMap().backupCount()
            + ", in-memory format "
            + context.stateMap().format()
            + " ("
            + context.stateMap().source()
            + "); Bucket4j's map uses the same, 271 partitions on both.");
    report.header(
        "- Load: closed loop (each thread calls again as soon as it has its answer), keys"
            + " drawn with seeds "
            + LoadDriver.SEED
            + "+thread, the same sequence for every contender."
            + " Latency is per call on the calling thread (service time; a closed loop hides"
            + " queueing delay that an open-loop generator would show).");
  }
}
