package dev.sluice.bench.memory;

import dev.sluice.bench.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs every {@link MemoryProbe} configuration of docs/memory.md, one JVM each and one after the
 * other (the JVMs never overlap: each measures its own heap), and prints the tables: bytes per key
 * for each store and candidate, and the per-part breakdown. The probes' own output goes to {@code
 * benchmarks/target/memory/<n>.log}.
 *
 * <p>Run from the repository root, after {@code ./mvnw -B -q -DskipTests package} (about 25 minutes
 * on a busy 2-core VM; {@code --only=a,b} runs the configurations whose names contain a or b):
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.memory.MemoryReport [--keys=1000000] [--only=...] [--out=FILE]
 * </pre>
 */
public final class MemoryReport {
  /** benchmarks/run.sh's JVM flags, so that every probe runs like the load harness. */
  static final List<String> JVM_FLAGS =
      List.of(
          "-Xms1g",
          "-Xmx2g",
          "-Djava.awt.headless=true",
          "-Dhazelcast.phone.home.enabled=false",
          "-Dhazelcast.logging.type=slf4j",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
          "--add-modules=java.se",
          "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.management/sun.management=ALL-UNNAMED",
          "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED");

  /** One row of the report: a name and the probe's arguments. */
  record Config(String name, String args) {}

  static final List<Config> CONFIGS =
      List.of(
          // Like for like: Sluice as configured (since issue 21: OBJECT, StateValue, swept), the
          // peers. The layout before issue 21 is "candidate path, today's encoding and TTL".
          new Config("Sluice (1 member)", "sluice --members=1"),
          new Config("Sluice (2 members, backup 1)", "sluice --members=2"),
          new Config("Bucket4j (1 member)", "bucket4j --members=1"),
          new Config("Bucket4j (2 members, backup 1)", "bucket4j --members=2"),
          new Config("Redis, PEXPIRE as the script sets it", "redis"),
          new Config("Redis, PEXPIRE line removed", "redis --no-expire"),
          // (b) record and map options, on the real path.
          new Config("(b) Sluice, BINARY format", "sluice --format=BINARY"),
          new Config("(b) Sluice, per-entry stats on", "sluice --per-entry-stats"),
          new Config("(b) Sluice, cacheDeserializedValues ALWAYS", "sluice --cache-values=ALWAYS"),
          new Config("(b) Sluice, eviction LRU", "sluice --eviction=LRU"),
          // The candidate path, checked against the real one, then each candidate.
          new Config("candidate path, today's encoding and TTL", "candidate --ttl"),
          new Config("(a) no TTL (sweep)", "candidate --sweep"),
          new Config("(a)+(c) compact key", "candidate --sweep --key=compact"),
          new Config("(a)+(c') 64-bit hash key", "candidate --sweep --key=hash64"),
          new Config("(a)+(d) tight value, String key", "candidate --sweep --value=tight"),
          new Config(
              "(a)+(c)+(d) compact key, tight value",
              "candidate --sweep --key=compact --value=tight"),
          new Config(
              "(a)+(d) OBJECT byte[] value", "candidate --sweep --value=bytes --format=OBJECT"),
          new Config(
              "(a)+(c)+(d) compact key, OBJECT byte[] value",
              "candidate --sweep --key=compact --value=bytes --format=OBJECT"),
          new Config(
              "(a)+(c')+(d) hash key, OBJECT byte[] value",
              "candidate --sweep --key=hash64 --value=bytes --format=OBJECT"),
          new Config(
              "(c)+(d) compact key, OBJECT byte[] value, TTL kept",
              "candidate --ttl --key=compact --value=bytes --format=OBJECT"),
          new Config("(e) buckets of ~64 keys, OBJECT, sweep", "bucket --sweep --format=OBJECT"),
          new Config("(e) buckets of ~64 keys, OBJECT, bucket TTL", "bucket --ttl --format=OBJECT"),
          new Config("(e) buckets of ~64 keys, BINARY, sweep", "bucket --sweep --format=BINARY"),
          new Config(
              "(e) buckets of ~16 keys, OBJECT, sweep",
              "bucket --sweep --format=OBJECT --bucket-keys=16"),
          new Config(
              "(e) buckets of ~256 keys, OBJECT, sweep",
              "bucket --sweep --format=OBJECT --bucket-keys=256"),
          // With the backup.
          new Config("(a) no TTL (2 members)", "candidate --sweep --members=2"),
          new Config(
              "(a)+(c)+(d) compact key, OBJECT byte[] value (2 members)",
              "candidate --sweep --key=compact --value=bytes --format=OBJECT --members=2"),
          new Config(
              "(e) buckets of ~64 keys, OBJECT, sweep (2 members)",
              "bucket --sweep --format=OBJECT --members=2"));

  static final String USAGE =
      """
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.memory.MemoryReport [--keys=1000000] [--only=...] [--out=FILE]
      """;

  private MemoryReport() {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    String keys = "1000000";
    List<String> only = List.of();
    Path out = null;
    for (String arg : args) {
      if (arg.startsWith("--keys=")) {
        keys = arg.substring("--keys=".length());
      } else if (arg.startsWith("--only=")) {
        only = List.of(arg.substring("--only=".length()).split(","));
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring("--out=".length()));
      } else {
        throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    Path logs = Path.of("benchmarks/target/memory");
    Files.createDirectories(logs);
    List<Map<String, String>> results = new ArrayList<>();
    int n = 0;
    for (Config config : CONFIGS) {
      n++;
      if (!only.isEmpty() && only.stream().noneMatch(config.name()::contains)) {
        continue;
      }
      Path log = logs.resolve(n + ".log");
      System.out.printf(Locale.ROOT, "[%s] %d: %s (%s)%n", Instant.now(), n, config.name(), log);
      Map<String, String> result = runProbe(config.args(), keys, log);
      if (result == null) {
        System.out.println("  no RESULT line, see " + log);
        continue;
      }
      result.put("name", config.name());
      result.put("args", config.args());
      results.add(result);
      System.out.println("  " + result.get("histPerKey") + " B per key");
    }
    String report = report(results, keys);
    System.out.println();
    System.out.println(report);
    if (out != null) {
      Files.writeString(out, report);
    }
  }

  /**
   * Runs {@link MemoryProbe} with {@code args} and {@code --keys=keys} in a JVM of its own (the
   * load harness's flags and this JVM's class path), its output to {@code log}, for at most 15
   * minutes; returns its RESULT line's fields, or null if it printed none.
   */
  public static @Nullable Map<String, String> runProbe(String args, String keys, Path log)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_FLAGS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MemoryProbe.class.getName());
    command.addAll(List.of(args.split(" ")));
    command.add("--keys=" + keys);
    Files.createDirectories(log.toAbsolutePath().getParent());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    if (!process.waitFor(15, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return null;
    }
    return result(log);
  }

  private static @Nullable Map<String, String> result(Path log) {
    try {
      for (String line : Files.readAllLines(log)) {
        if (line.startsWith("RESULT ")) {
          Map<String, String> fields = new LinkedHashMap<>();
          for (String field : line.substring("RESULT ".length()).split(";")) {
            int eq = field.indexOf('=');
            if (eq > 0) {
              fields.put(field.substring(0, eq), field.substring(eq + 1));
            }
          }
          return fields;
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String report(List<Map<String, String>> results, String keys) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%s keys per store; bytes per key in the JVM (class histogram after full GC; used heap"
                + " after GC in brackets) or Redis's used_memory.%n%n",
            keys));
    out.append("| store / candidate | members | bytes per key | entries | probe arguments |\n");
    out.append("|---|---:|---:|---:|---|\n");
    for (Map<String, String> r : results) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s (%s) | %s | `%s` |%n",
              r.get("name"),
              r.get("members"),
              r.get("histPerKey"),
              r.get("heapPerKey"),
              r.get("entries"),
              r.get("args")));
    }
    out.append("\nPer part, bytes per key (class histogram; all copies in the JVM):\n\n");
    List<String> parts =
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
    out.append("| store / candidate | ").append(String.join(" | ", parts)).append(" |\n");
    out.append("|---|").append("---:|".repeat(parts.size())).append('\n');
    for (Map<String, String> r : results) {
      if (!r.containsKey("record")) {
        continue;
      }
      out.append("| ").append(r.get("name"));
      for (String part : parts) {
        out.append(" | ").append(r.get(part));
      }
      out.append(" |\n");
    }
    return out.toString();
  }
}
