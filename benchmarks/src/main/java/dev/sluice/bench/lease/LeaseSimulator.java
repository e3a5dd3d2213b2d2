package dev.sluice.bench.lease;

import dev.sluice.bench.Usage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The lease-policy simulator: replays traces through lease holders and a key owner running the real
 * decision code ({@code KeyDecision}, the algorithms, {@code LeaseHolder} and the policy under
 * test) on a virtual clock, and prints, per trace, one table with a row per policy: where requests
 * were decided, what a lease cost in strictness, over-admission (0, or the run is wrong) and the
 * holders' memory. Deterministic: the same seed prints the same tables (docs/decisions/
 * lease-policy.md has the result and what it decided). An admission over the rule's bound under any
 * policy fails the run (an exception and a non-zero exit, after the tables): a lease may make a
 * holder stricter, never laxer. Run it from the repository root:
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh &amp;&amp; java -cp benchmarks/target/benchmarks.jar dev.sluice.bench.lease.LeaseSimulator [options]
 *
 *   --policies a,b,...   the policies compared (default: all of them)
 *   --trace name|file    a standard trace, or a trace file; repeat for several (default: all)
 *   --rule 'rule'        the rule of trace files that name none, e.g. 'gcra 100/1s burst 20'
 *   --seed n             the seed of the generated traces (default 1)
 *   --scale x            each generated trace's length times x (default 1; 0.1 for a quick look)
 *   --rtt-us n           a round trip to the key's owner, in microseconds (default 500)
 *   --local-us n         an answer from a lease, in microseconds (default 1)
 *   --list               the standard traces and the policies, and nothing else
 * </pre>
 *
 * A trace file has one request per line, {@code <time_ms> <holder> <key> [permits]}, with optional
 * {@code # rule: ...} and {@code # holders: n} headers ({@link TraceFile}).
 */
public final class LeaseSimulator {
  static final String USAGE =
      """
      ./mvnw -q -pl benchmarks -am package -DskipTests -Pjmh && java -cp benchmarks/target/benchmarks.jar dev.sluice.bench.lease.LeaseSimulator [options]

        --policies a,b,...   the policies compared (default: all of them)
        --trace name|file    a standard trace, or a trace file; repeat for several (default: all)
        --rule 'rule'        the rule of trace files that name none, e.g. 'gcra 100/1s burst 20'
        --seed n             the seed of the generated traces (default 1)
        --scale x            each generated trace's length times x (default 1; 0.1 for a quick look)
        --rtt-us n           a round trip to the key's owner, in microseconds (default 500)
        --local-us n         an answer from a lease, in microseconds (default 1)
        --list               the standard traces and the policies, and nothing else
      """;

  private LeaseSimulator() {}

  /** What the command line asked for. */
  record Options(
      List<SimPolicy> policies,
      List<String> traces,
      String rule,
      long seed,
      double scale,
      Simulation.Costs costs,
      boolean list) {

    static Options parse(String[] args) {
      List<SimPolicy> policies = List.of(SimPolicy.values());
      List<String> traces = new ArrayList<>();
      String rule = "sliding_window 50/1s";
      long seed = 1;
      double scale = 1;
      long rttMicros = 500;
      long localMicros = 1;
      boolean list = false;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        if (arg.equals("--list")) {
          list = true;
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(arg + " needs a value (see --help)");
        }
        String value = args[++i];
        switch (arg) {
          case "--policies" ->
              policies = Arrays.stream(value.split(",")).map(SimPolicy::of).toList();
          case "--trace" -> traces.add(value);
          case "--rule" -> rule = value;
          case "--seed" -> seed = Long.parseLong(value);
          case "--scale" -> scale = Double.parseDouble(value);
          case "--rtt-us" -> rttMicros = Long.parseLong(value);
          case "--local-us" -> localMicros = Long.parseLong(value);
          default -> throw new IllegalArgumentException("unknown option " + arg + " (see --help)");
        }
      }
      if (!(scale > 0) || rttMicros < 0 || localMicros < 0) {
        throw new IllegalArgumentException("scale must be positive, costs not negative");
      }
      return new Options(
          policies,
          traces,
          rule,
          seed,
          scale,
          new Simulation.Costs(rttMicros * 1_000, localMicros * 1_000),
          list);
    }

    /** The traces asked for: standard ones by name, files by path; every standard one if none. */
    List<SimTrace> chosenTraces() throws IOException {
      List<SimTrace> standard = Traces.standard(seed, scale);
      if (traces.isEmpty()) {
        return standard;
      }
      List<SimTrace> chosen = new ArrayList<>();
      for (String name : traces) {
        SimTrace found =
            standard.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
        if (found != null) {
          chosen.add(found);
        } else if (Files.isRegularFile(Path.of(name))) {
          chosen.add(TraceFile.read(Path.of(name), rule));
        } else {
          throw new IllegalArgumentException(
              "no standard trace or file '" + name + "' (--list names the traces)");
        }
      }
      return chosen;
    }
  }

  public static void main(String[] args) throws IOException {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    Options options = Options.parse(args);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (options.list()) {
      for (SimTrace trace : Traces.standard(options.seed(), options.scale())) {
        out.printf(Locale.ROOT, "%-22s %s; %s%n", trace.name(), trace.rule(), trace.description());
      }
      out.println("policies: " + Arrays.stream(SimPolicy.values()).map(SimPolicy::label).toList());
      return;
    }
    run(options, out);
  }

  /**
   * Runs every chosen trace under every chosen policy, printing each trace's table as it ends.
   *
   * @throws IllegalStateException after the tables, if any run admitted beyond the rule's bound
   */
  static List<Simulation.Result> run(Options options, PrintStream out) throws IOException {
    out.printf(
        Locale.ROOT,
        "Seed %d, scale %s, a round trip %d µs, a lease's answer %d µs.%n",
        options.seed(),
        options.scale(),
        options.costs().roundTripNanos() / 1_000,
        options.costs().localNanos() / 1_000);
    List<Simulation.Result> all = new ArrayList<>();
    for (SimTrace trace : options.chosenTraces()) {
      List<Simulation.Result> results = new ArrayList<>();
      for (SimPolicy policy : options.policies()) {
        results.add(new Simulation(trace, policy, options.costs()).run());
      }
      out.println();
      out.print(SimReport.table(trace, results));
      all.addAll(results);
    }
    out.println();
    out.print(SimReport.summary(all));
    List<String> over =
        all.stream()
            .filter(r -> r.overAdmitted() > 0)
            .map(r -> r.trace() + " under " + r.policy() + ": " + r.overAdmitted())
            .toList();
    if (!over.isEmpty()) {
      throw new IllegalStateException(
          "admissions over the rule's bound, which a lease must never cause: " + over);
    }
    return all;
  }
}
