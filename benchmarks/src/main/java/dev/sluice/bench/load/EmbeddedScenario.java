package dev.sluice.bench.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * S1: Sluice's embedded member against Bucket4j's, 8 threads in the application JVM on 10,000
 * uniform keys, and S1b: the grid benchmark's own table of every embedded mode, which run.sh runs
 * in the same run and passes in with {@code --grid-output}.
 */
final class EmbeddedScenario implements Scenario {
  @Override
  public String id() {
    return "S1";
  }

  @Override
  public void run(BenchContext context) throws Exception {
    BenchRule rule = BenchRule.BENCH;
    Workload load = context.settings().workload(8, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S1",
            "Embedded: Sluice member vs Bucket4j member",
            "8 threads in the application JVM, each a synchronous decision on an embedded member"
                + " (one member per contender, alone in its cluster, same config), "
                + load.keys().description()
                + ", rule "
                + rule.describe()
                + " (Bucket4j: a bandwidth of the same limit, refilled greedily), so decisions"
                + " admit.");
    Measurement.run(
        context,
        s,
        load,
        rule,
        List.of(
            Contenders.sluiceEmbedded(true),
            Contenders.sluiceEmbedded(false),
            Contenders.sluiceEmbeddedTtlStorage(),
            Contenders.bucket4jEmbedded()));
    context.report().scenario(s);
    gridModes(context);
  }

  /**
   * The grid's own benchmark ({@code dev.sluice.bench.grid.GridBenchmark}, issue 3) measures more
   * modes of the embedded comparison (direct, batched, async with 128 in flight, 64-key batches,
   * Bucket4j sync and async). run.sh runs it in the full run; its table goes in as it printed it.
   */
  private static void gridModes(BenchContext context) throws java.io.IOException {
    Path gridOutput = context.settings().gridOutput();
    if (gridOutput == null) {
      if (!context.settings().quick()) {
        context
            .report()
            .extra("S1", "S1b (the grid benchmark's modes) was not run: no `--grid-output`.\n");
      }
      return;
    }
    StringBuilder md =
        new StringBuilder(
            "#### S1b Embedded, every mode: the grid benchmark's own table\n"
                + "`dev.sluice.bench.grid.GridBenchmark --only=OBJECT` (issue 3's benchmark, run by"
                + " run.sh in the same run; one member holds both Sluice's and Bucket4j's map, 8"
                + " threads, 10k keys, limit 1,000/s; async modes keep 16 calls in flight per"
                + " thread; median of its rounds):\n\n");
    List<String> lines = Files.exists(gridOutput) ? Files.readAllLines(gridOutput) : List.of();
    List<String> table =
        lines.stream().filter(line -> line.startsWith("|") && !line.contains("(skipped)")).toList();
    if (table.isEmpty()) {
      md.append("not run: GridBenchmark printed no table (see ").append(gridOutput).append(")\n");
    } else {
      table.forEach(line -> md.append(line).append("\n"));
    }
    context.report().extra("S1", md.toString());
  }
}
