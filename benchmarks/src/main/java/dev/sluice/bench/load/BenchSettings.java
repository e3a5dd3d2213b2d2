package dev.sluice.bench.load;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one run of the harness does: quick (the CI smoke run) or full (the published figures), the
 * scenarios it runs, and where it writes. Parsed from {@code benchmarks/run.sh}'s arguments.
 *
 * @param quick short rounds and a small memory fill; reports under {@code benchmarks/target/}
 * @param doc where the report goes: {@code docs/benchmarks.md} for a full run of every scenario,
 *     under {@code benchmarks/target/} for a quick or {@code --only} run unless {@code --doc} says
 * @param warmup per contender, before its measured rounds
 * @param round one measured round
 * @param rounds measured rounds per contender, interleaved across contenders
 * @param memoryKeys keys filled in the memory scenario
 * @param only scenario ids to run ({@code S1..S10}); empty for all
 * @param strict exit 1 when a Sluice contender could not run
 * @param gridOutput the grid benchmark's output for S1b, or null
 */
public record BenchSettings(
    boolean quick,
    Duration warmup,
    Duration round,
    int rounds,
    int memoryKeys,
    Path doc,
    Path images,
    Path nodeJar,
    String command,
    Set<String> only,
    boolean strict,
    @Nullable Path gridOutput) {

  /** Parses the harness's arguments; throws {@link IllegalArgumentException} on an unknown one. */
  public static BenchSettings parse(String[] args, String command) {
    boolean quick = false;
    boolean strict = false;
    Path gridOutput = null;
    Set<String> only = new LinkedHashSet<>();
    Path doc = null;
    Path images = null;
    Path nodeJar = Path.of("grid-node", "target", "sluice-node.jar");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--strict" -> strict = true;
        case "--only" -> only.addAll(List.of(value(args, ++i).toUpperCase(Locale.ROOT).split(",")));
        case "--doc" -> doc = Path.of(value(args, ++i));
        case "--img" -> images = Path.of(value(args, ++i));
        case "--node-jar" -> nodeJar = Path.of(value(args, ++i));
        case "--grid-output" -> gridOutput = Path.of(value(args, ++i));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    // Only a full run of every scenario publishes: a quick (CI smoke) run and an --only run report
    // under target/ unless told otherwise. Report writes the whole page, so an --only run written
    // to docs/benchmarks.md would drop every other scenario's table.
    boolean publishes = !quick && only.isEmpty();
    if (doc == null) {
      doc =
          publishes
              ? Path.of("docs", "benchmarks.md")
              : Path.of(
                  "benchmarks", "target", quick ? "benchmarks-quick.md" : "benchmarks-only.md");
    }
    if (images == null) {
      images = publishes ? Path.of("docs", "img") : Path.of("benchmarks", "target", "img");
    }
    return quick
        ? new BenchSettings(
            true,
            Duration.ofMillis(300),
            Duration.ofMillis(400),
            2,
            20_000,
            doc,
            images,
            nodeJar,
            command,
            only,
            strict,
            gridOutput)
        : new BenchSettings(
            false,
            Duration.ofSeconds(4),
            Duration.ofSeconds(5),
            5,
            1_000_000,
            doc,
            images,
            nodeJar,
            command,
            only,
            strict,
            gridOutput);
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  /** Whether scenario {@code id} runs. */
  public boolean wanted(String id) {
    return only.isEmpty() || only.contains(id);
  }

  /** A workload of {@code threads} closed-loop callers on {@code keys} with this run's lengths. */
  public Workload workload(int threads, KeySpace keys) {
    return new Workload(threads, keys, warmup, round, rounds, MAX_OPS_PER_ROUND, false);
  }

  /** No round goes on beyond this many decisions, whatever its duration. */
  public static final long MAX_OPS_PER_ROUND = 50_000_000L;
}
