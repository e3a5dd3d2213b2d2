package dev.sluice.bench.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rounds of {@code POST /v1/check} driven by wrk (Debian's {@code wrk} package, which run.sh
 * installs like redis-server) instead of the Java driver: a C generator, so that the generator's
 * own cost squeezes the server less.
 *
 * <p>{@code wrk-check.lua} builds one request per key up front, picks keys uniformly (seeded per
 * wrk thread), counts 200 (admitted), 429 (denied) and anything else, stops each thread after its
 * share of the round's decision bound and prints one summary line that this class reads. Every
 * round is one wrk process, bounded by {@code -d} (whole seconds, rounded up from the round's
 * duration), by that count, and by a process timeout; the harness starts it and stops only it.
 */
final class WrkRunner implements RoundRunner {
  static final int THREADS = 2;
  static final int CONNECTIONS = 16;

  private static final Pattern SUMMARY = Pattern.compile("^SLUICE_WRK (.*)$", Pattern.MULTILINE);
  private static final Path LOG_DIR = Path.of("benchmarks", "target", "load-logs");

  private final String label;
  private final Path binary;
  private final Path script;
  private final int port;
  private final String rule;
  private final KeySpace keys;
  private final String keyPrefix;
  private int rounds;

  private WrkRunner(String label, Path binary, Path script, int port, String rule, KeySpace keys) {
    this.label = label;
    this.binary = binary;
    this.script = script;
    this.port = port;
    this.rule = rule;
    this.keys = keys;
    this.keyPrefix = ContenderKeys.prefix() + indexedPrefix(keys);
  }

  /**
   * A runner against 127.0.0.1:{@code port}; fails with a reason (reported as "not run") when wrk
   * is not installed.
   */
  static WrkRunner start(String label, int port, String rule, KeySpace keys) throws IOException {
    Path binary =
        findBinary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "wrk is not installed (benchmarks/run.sh installs it with apt-get; that"
                            + " failed or was skipped)"));
    Files.createDirectories(LOG_DIR);
    Path script = LOG_DIR.resolve("wrk-check-" + label + ".lua");
    Files.writeString(script, scriptText(), StandardCharsets.UTF_8);
    return new WrkRunner(label, binary, script, port, rule, keys);
  }

  static Optional<Path> findBinary() {
    return Executables.find("wrk");
  }

  /** wrk's version as it prints it ({@code wrk 4.1.0 ...}), or "not installed". */
  static String version() {
    return Executables.version("wrk");
  }

  private static String scriptText() {
    try (InputStream in = WrkRunner.class.getResourceAsStream("wrk-check.lua")) {
      if (in == null) {
        throw new IllegalStateException("wrk-check.lua is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The command line of one round; the key prefix is this runner's own ({@link ContenderKeys}) and
   * every key's name without its index.
   */
  List<String> command(Duration duration, long maxOps) {
    long seconds = Math.max(1, (duration.toMillis() + 999) / 1_000);
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.add("-t" + THREADS);
    command.add("-c" + CONNECTIONS);
    command.add("-d" + seconds + "s");
    command.add("--timeout");
    command.add("10s");
    command.add("-s");
    command.add(script.toAbsolutePath().toString());
    command.add("http://127.0.0.1:" + port + "/v1/check");
    command.add("--"); // the script's arguments
    command.add(rule);
    command.add(keyPrefix);
    command.add(Integer.toString(keys.size()));
    command.add(Long.toString(Math.max(1, maxOps / THREADS)));
    return command;
  }

  private static String indexedPrefix(KeySpace keys) {
    String first = keys.key(0);
    if (!first.endsWith("0")) {
      throw new IllegalStateException("wrk needs keys named <prefix><index>, got " + first);
    }
    return first.substring(0, first.length() - 1);
  }

  @Override
  public RoundResult round(Workload load, Duration duration, long maxOps) throws IOException {
    List<String> command = command(duration, maxOps);
    long seconds = Math.max(1, (duration.toMillis() + 999) / 1_000);
    ManagedProcess wrk =
        ManagedProcess.start("wrk-" + label + "-" + (rounds++), command, Map.of(), LOG_DIR);
    try {
      int exit = wrk.awaitExit(Duration.ofSeconds(seconds + 30));
      String output = Files.readString(wrk.log(), StandardCharsets.UTF_8);
      if (exit != 0) {
        throw new IllegalStateException("wrk exited with " + exit + "; " + wrk.logTail());
      }
      return parse(output);
    } finally {
      wrk.close();
    }
  }

  /**
   * wrk runs whole seconds: a warm-up shorter than one (the quick run's) is skipped, since the Java
   * driver's rows warmed the same server just before.
   */
  @Override
  public void warmUp(Workload load) throws IOException {
    if (load.warmup().toMillis() >= 1_000) {
      round(load, load.warmup(), load.maxOpsPerRound());
    }
  }

  /** The round as wrk's script summarised it. */
  static RoundResult parse(String output) {
    Matcher m = SUMMARY.matcher(output);
    if (!m.find()) {
      throw new IllegalStateException("wrk printed no summary line: " + output.strip());
    }
    Map<String, Long> fields = new LinkedHashMap<>();
    for (String pair : m.group(1).trim().split("\\s+")) {
      String[] kv = pair.split("=", 2);
      fields.put(kv[0], Long.parseLong(kv[1]));
    }
    long ok = field(fields, "ok");
    long limited = field(fields, "limited");
    long other = field(fields, "other");
    long socketErrors =
        field(fields, "connect")
            + field(fields, "read")
            + field(fields, "write")
            + field(fields, "timeout");
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    outcomes.put(Outcome.ALLOWED, ok);
    outcomes.put(Outcome.DENIED, limited);
    outcomes.put(Outcome.ERROR, other + socketErrors);
    Map<Double, Double> percentiles = new LinkedHashMap<>();
    percentiles.put(50.0, (double) field(fields, "p50"));
    percentiles.put(99.0, (double) field(fields, "p99"));
    percentiles.put(99.9, (double) field(fields, "p999"));
    String firstError =
        other + socketErrors == 0
            ? null
            : String.format(
                "wrk: %d answers neither 200 nor 429, socket errors %d (connect/read/write/timeout)",
                other, socketErrors);
    return new RoundResult(
        ok + limited + other + socketErrors,
        field(fields, "duration_us") * 1_000,
        Latency.percentiles(percentiles),
        outcomes,
        firstError,
        null);
  }

  private static long field(Map<String, Long> fields, String name) {
    Long value = fields.get(name);
    if (value == null) {
      throw new IllegalStateException("wrk's summary has no " + name + ": " + fields);
    }
    return value;
  }

  @Override
  public void close() {
    // Every round's wrk process is stopped when its round ends; nothing else is held.
  }
}
