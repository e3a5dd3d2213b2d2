package dev.sluice.bench.load;

import dev.sluice.bench.Usage;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The load and peer comparison harness: every scenario side by side in one run, written to {@code
 * docs/benchmarks.md} with plots under {@code docs/img/}.
 *
 * <p>Run it through {@code benchmarks/run.sh [--quick]}, which builds, installs redis-server,
 * redis-benchmark (redis-tools) and wrk when absent and starts this class with the JVM flags of the
 * published runs. Directly ({@link BenchSettings}):
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.load.LoadBench [--quick] [--only S2,S5] [--doc FILE] [--img DIR] \
 *   [--node-jar grid-node/target/sluice-node.jar] [--grid-output FILE] [--strict]
 * </pre>
 *
 * <h2>Where to look</h2>
 *
 * {@link #SCENARIOS} lists the scenarios (one class each: {@link EmbeddedScenario} S1, {@link
 * ClientScenario} S2, {@link HotKeyScenario} S3, {@link AttackScenario} S4, {@link RestScenario}
 * S5, {@link MemoryScenario} S6, {@link SkewedKeysScenario} S7, {@link GatewayScenario} S8, {@link
 * RespScenario} S9, {@link RegionScenario} S10); each lists its contenders, one line each, from
 * {@link Contenders}. {@link Measurement} runs them, {@link LoadDriver} is the load, {@link
 * dev.sluice.bench.load.exactness} judges admissions, {@link Targets} the targets, {@link Report}
 * writes the document.
 *
 * <h2>How it stays fair</h2>
 *
 * Every contender runs under the same {@link LoadDriver} (same threads, same seeded key sequence,
 * same JVM and flags), servers are separate JVMs (or redis-server) on loopback started with the
 * same flags, every contender is warmed up, and the measured rounds are interleaved (round 1 of
 * every contender, then round 2, ...) so that a noisy neighbour on the shared machine disturbs all
 * of them alike; the report gives medians and the spread. Ratios are always from the same run.
 */
public final class LoadBench {
  /** Every scenario, in the order a run measures them. */
  static final List<Scenario> SCENARIOS =
      List.of(
          new EmbeddedScenario(),
          new ClientScenario(),
          new HotKeyScenario(),
          new AttackScenario(),
          new RestScenario(),
          new MemoryScenario(),
          new SkewedKeysScenario(),
          new GatewayScenario(),
          new RespScenario(),
          new RegionScenario());

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.load.LoadBench [--quick] [--only S2,S5] [--doc FILE] [--img DIR] \\
        [--node-jar grid-node/target/sluice-node.jar] [--grid-output FILE] [--strict]
      """;

  private LoadBench() {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    BenchSettings settings;
    try {
      settings =
          BenchSettings.parse(args, System.getProperty("bench.command", "benchmarks/run.sh"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Servers servers = new Servers(Path.of("benchmarks", "target", "load-logs"), settings.nodeJar());
    BenchContext context =
        new BenchContext(settings, servers, SluiceContenders.stateMapSettings(), new Report());
    List<String> sluiceNotRun;
    try {
      run(context);
      sluiceNotRun = context.report().sluiceNotRun();
    } finally {
      servers.close();
    }
    sluiceNotRun.forEach(line -> System.out.println("Sluice did not run: " + line));
    // Peers may be absent (reported as "not run"); with --strict, Sluice itself may not.
    System.exit(settings.strict() && !sluiceNotRun.isEmpty() ? 1 : 0);
  }

  static void run(BenchContext context) throws Exception {
    BenchSettings settings = context.settings();
    System.out.println("state map: " + context.stateMap());
    if (settings.quick()) {
      boolean peers = settings.wanted("S2") || settings.wanted("S3") || settings.wanted("S4");
      context
          .servers()
          .prestart(
              peers
                  || settings.wanted("S5")
                  || settings.wanted("S7")
                  || settings.wanted("S8")
                  || settings.wanted("S9"),
              peers || settings.wanted("S7"),
              context.stateMap().backupCount(),
              context.stateMap().format().name(),
              () -> {
                if (settings.wanted("S5")) {
                  RestScenario.startCeiling(context);
                }
              });
    }
    long started = System.nanoTime();
    List<Double> loads = Collections.synchronizedList(new ArrayList<>());
    ScheduledExecutorService sampler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "load-average");
              t.setDaemon(true);
              return t;
            });
    sampler.scheduleAtFixedRate(
        () -> loads.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()),
        0,
        5,
        TimeUnit.SECONDS);
    for (Scenario scenario : SCENARIOS) {
      if (settings.wanted(scenario.id())) {
        scenario.run(context);
      }
    }
    Targets.judge(context.report(), settings);
    sampler.shutdownNow();
    loads.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    double[] sorted = loads.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    ReportHeader.write(
        context, started, sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
    context.report().write(settings.doc(), settings.images());
    System.out.println("wrote " + settings.doc() + " and plots in " + settings.images());
  }
}
