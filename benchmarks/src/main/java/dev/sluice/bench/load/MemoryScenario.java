package dev.sluice.bench.load;

import dev.sluice.bench.memory.MemoryReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * S6: heap bytes per active sliding_window key, like for like (issue 21). Each store is filled with
 * the same keys ({@code mem|m0} …) by {@link dev.sluice.bench.memory.MemoryProbe} in a JVM of its
 * own, one after the other, and measured the same way: the JVM's live class histogram after a full
 * GC, after minus before filling (everything the store keeps per key: record, key, value, storage
 * and expiry or cleanup structures), and the used heap after GC as a cross-check; Redis by its
 * {@code used_memory} after minus before, with the script's {@code PEXPIRE} set. Rows: Sluice on
 * the owner (one member) with its per-part breakdown, Sluice with its backup (two members, backup
 * count 1, both in the JVM), Redis, and Bucket4j's Hazelcast entry-processor proxy.
 *
 * <p>The verdict against Redis uses the larger of Sluice's two heap figures, so that it never rests
 * on a measure that leaves something out.
 */
final class MemoryScenario implements Scenario {
  /** One probe run: the row's name and the probe's arguments. */
  private record Probe(String store, String args) {}

  private static final List<Probe> PROBES =
      List.of(
          new Probe("Sluice, owner (1 member)", "sluice --members=1"),
          new Probe("Sluice, owner + backup (2 members, backup count 1)", "sluice --members=2"),
          new Probe("Redis + Lua, PEXPIRE set", "redis"),
          new Probe("Bucket4j Hazelcast proxy, owner (1 member)", "bucket4j --members=1"));

  private static final List<String> PARTS =
      List.of(
          "record",
          "key",
          "value",
          "node",
          "table",
          "expiryMeta",
          "expiryNode",
          "expiryTable",
          "otherBytes",
          "other");

  @Override
  public String id() {
    return "S6";
  }

  @Override
  public void run(BenchContext context) {
    Report report = context.report();
    String keys = Integer.toString(context.settings().memoryKeys());
    if (context.settings().quick()) {
      report.memoryNote(
          "Quick mode fills "
              + String.format(Locale.ROOT, "%,d", context.settings().memoryKeys())
              + " keys, not 1M: fixed overheads weigh more per key, so these figures are only a"
              + " smoke test. The full run uses 1,000,000 keys.");
    }
    report.memoryNote(
        "Every key is a live sliding_window state, 1,000 per 10 minutes, so none is removed while"
            + " measured. Each store runs in a JVM of its own (`MemoryProbe <store> --keys="
            + keys
            + "`, logs in benchmarks/target/memory/s6-*.log). JVM bytes per key are the larger of"
            + " two measures, each after a full GC, after minus before filling: the live class"
            + " histogram (which gives the parts) and the used heap. Redis: used_memory after"
            + " minus before.");
    Map<String, Map<String, String>> results = new LinkedHashMap<>();
    int n = 0;
    for (Probe probe : PROBES) {
      n++;
      Path log = Path.of("benchmarks/target/memory/s6-" + n + ".log");
      Map<String, String> result;
      try {
        result = MemoryReport.runProbe(probe.args(), keys, log);
      } catch (IOException e) {
        report.memory(MemoryRow.notRun(probe.store(), Measurement.reason(e)));
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        report.memory(MemoryRow.notRun(probe.store(), "interrupted"));
        return;
      }
      if (result == null) {
        report.memory(MemoryRow.notRun(probe.store(), "the probe printed no result, see " + log));
        continue;
      }
      results.put(probe.args(), result);
      report.memory(row(probe, result));
    }
    verdict(report, results);
  }

  private static MemoryRow row(Probe probe, Map<String, String> result) {
    boolean redis = probe.args().startsWith("redis");
    // The larger of the two JVM figures: a verdict never rests on the one that counts less.
    double perKey =
        Math.max(
            Double.parseDouble(result.get("histPerKey")),
            Double.parseDouble(result.get("heapPerKey")));
    String method;
    if (redis) {
      method =
          "`INFO memory` used_memory after minus before (key, hash, both dictionaries' entries)";
    } else {
      StringBuilder parts = new StringBuilder();
      for (String part : PARTS) {
        String value = result.get(part);
        if (value != null && Math.abs(Double.parseDouble(value)) >= 0.05) {
          parts.append(parts.length() == 0 ? "" : ", ").append(part).append(' ').append(value);
        }
      }
      method =
          String.format(
              Locale.ROOT,
              "the larger of the heap histogram (%s B) and used heap after GC (%s B); histogram per"
                  + " part: %s",
              result.get("histPerKey"),
              result.get("heapPerKey"),
              parts);
    }
    return new MemoryRow(
        probe.store(),
        Long.parseLong(result.get("keys")),
        perKey,
        method + " `" + probe.args() + "`",
        null);
  }

  private static void verdict(Report report, Map<String, Map<String, String>> results) {
    Map<String, String> ours = results.get("sluice --members=1");
    Map<String, String> redis = results.get("redis");
    if (ours == null || redis == null) {
      report.memoryNote("No verdict against Redis: a probe did not run.");
      return;
    }
    double sluice =
        Math.max(
            Double.parseDouble(ours.get("histPerKey")), Double.parseDouble(ours.get("heapPerKey")));
    // Redis's probe reports used_memory in both fields.
    double redisPerKey = Double.parseDouble(redis.get("histPerKey"));
    report.memoryNote(
        String.format(
            Locale.ROOT,
            "Sluice on the owner against Redis, like for like (the larger of Sluice's histogram and"
                + " used-heap figures): %.1f B against %.1f B, %.2f×; the target (≤ Redis) is %s.",
            sluice,
            redisPerKey,
            sluice / redisPerKey,
            sluice <= redisPerKey ? "met" : "NOT met"));
  }
}
