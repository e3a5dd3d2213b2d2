package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rounds of one Redis command driven by {@code redis-benchmark} (Debian's redis-tools): the same C
 * generator, binary and flags against Sluice's Redis port and against redis-server, {@value
 * #CONNECTIONS} connections, each with {@code pipeline} commands in flight.
 *
 * <p>redis-benchmark sends a fixed number of requests ({@code -n}), not a duration: each round asks
 * for as many as the previous round's rate fills the round's duration with (the first, a warm-up,
 * guesses {@value #FIRST_GUESS_PER_SECOND} a second), never more than the round's decision bound,
 * and the process has a timeout besides. It reads no answer's meaning, so these rounds carry no
 * outcomes and no exactness: over-admission is counted by a saturating run of the Java driver
 * instead. redis-benchmark stops at the first error answer and exits with 1, which fails the round
 * with the error it printed: a command that answers errors quickly must not read as throughput.
 */
final class RedisBenchmarkRunner implements RoundRunner {
  static final int CONNECTIONS = 50;
  static final long FIRST_GUESS_PER_SECOND = 20_000;

  /**
   * Random keys: redis-benchmark replaces this in the command with a number below {@link #KEYS}.
   */
  static final String RANDOM = "__rand_int__";

  static final int KEYS = 1_000_000;

  private static final Path LOG_DIR = Path.of("benchmarks", "target", "load-logs");
  private static final Pattern THROUGHPUT =
      Pattern.compile("throughput summary: ([0-9.]+) requests per second");
  private static final Pattern SUMMARY_LATENCY =
      Pattern.compile(
          "avg\\s+min\\s+p50\\s+p95\\s+p99\\s+max\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+"
              + "([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)");
  private static final Pattern PERCENTILE =
      Pattern.compile("^([0-9.]+)% <= ([0-9.]+) milliseconds", Pattern.MULTILINE);

  private final String label;
  private final Path binary;
  private final int port;
  private final int pipeline;
  private final boolean randomKeys;
  private final List<String> command;
  private double lastPerSecond = FIRST_GUESS_PER_SECOND;
  private int rounds;

  private RedisBenchmarkRunner(
      String label, Path binary, int port, int pipeline, boolean randomKeys, List<String> command) {
    this.label = label;
    this.binary = binary;
    this.port = port;
    this.pipeline = pipeline;
    this.randomKeys = randomKeys;
    this.command = List.copyOf(command);
  }

  /**
   * A runner of {@code command} against 127.0.0.1:{@code port}; with {@code randomKeys} the command
   * names its key with {@link #RANDOM}. Fails with a reason (reported as "not run") when
   * redis-benchmark is not installed.
   */
  static RedisBenchmarkRunner start(
      String label, int port, int pipeline, boolean randomKeys, List<String> command) {
    Path binary =
        findBinary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "redis-benchmark is not installed (benchmarks/run.sh installs redis-tools"
                            + " with apt-get; that failed or was skipped)"));
    if (randomKeys != command.stream().anyMatch(arg -> arg.contains(RANDOM))) {
      throw new IllegalArgumentException(
          "random keys need " + RANDOM + " in the command, and only they: " + command);
    }
    return new RedisBenchmarkRunner(label, binary, port, pipeline, randomKeys, command);
  }

  static Optional<Path> findBinary() {
    return Executables.find("redis-benchmark");
  }

  /** redis-benchmark's version as it prints it ({@code redis-benchmark 7.0.15}), or why not. */
  static String version() {
    return Executables.version("redis-benchmark");
  }

  /** The command line of one round of {@code requests} requests. */
  List<String> commandLine(long requests) {
    List<String> line = new ArrayList<>();
    line.add(binary.toString());
    line.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(port)));
    line.addAll(List.of("-c", Integer.toString(CONNECTIONS), "-P", Integer.toString(pipeline)));
    line.addAll(List.of("-n", Long.toString(requests)));
    if (randomKeys) {
      line.addAll(List.of("-r", Integer.toString(KEYS)));
    }
    line.addAll(command);
    return line;
  }

  /**
   * The requests that fill {@code duration} at the last round's rate: at least one pipeline per
   * connection, at most {@code maxOps}.
   */
  long requestsFor(Duration duration, long maxOps) {
    long wanted = (long) (lastPerSecond * duration.toNanos() / 1e9);
    return Math.max(CONNECTIONS * (long) pipeline, Math.min(maxOps, wanted));
  }

  @Override
  public RoundResult round(Workload load, Duration duration, long maxOps) throws IOException {
    long requests = requestsFor(duration, maxOps);
    // At a tenth of the expected rate the round still ends; beyond that the process is stopped.
    Duration timeout = duration.multipliedBy(10).plusSeconds(30);
    ManagedProcess benchmark =
        ManagedProcess.start(
            "redis-benchmark-" + label + "-" + (rounds++),
            commandLine(requests),
            Map.of(),
            LOG_DIR);
    try {
      int exit = benchmark.awaitExit(timeout);
      if (exit != 0) {
        throw new IllegalStateException(
            "redis-benchmark "
                + (exit < 0 ? "did not finish within " + timeout : "exited with " + exit)
                + "; "
                + benchmark.logTail());
      }
      RoundResult round =
          parse(Files.readString(benchmark.log(), StandardCharsets.UTF_8), requests);
      if (round.throughputPerSecond() > 0) {
        lastPerSecond = round.throughputPerSecond();
      }
      return round;
    } finally {
      benchmark.close();
    }
  }

  /**
   * One round as redis-benchmark printed it: the throughput summary, the summary's p50 and p99, and
   * p99.9 as the first line of its percentile distribution at or above 99.9 % (an upper estimate:
   * it prints the distribution in halving steps).
   */
  static RoundResult parse(String output, long requests) {
    String text = output.replace('\r', '\n');
    Matcher throughput = THROUGHPUT.matcher(text);
    Matcher summary = SUMMARY_LATENCY.matcher(text);
    if (!throughput.find() || !summary.find()) {
      throw new IllegalStateException(
          "redis-benchmark printed no summary: " + tail(text.strip(), 400));
    }
    double perSecond = Double.parseDouble(throughput.group(1));
    Map<Double, Double> micros = new TreeMap<>();
    micros.put(50.0, millisToMicros(summary.group(3)));
    micros.put(99.0, millisToMicros(summary.group(5)));
    micros.put(99.9, p999(text).orElse(millisToMicros(summary.group(6))));
    long elapsedNanos = perSecond == 0 ? 0 : (long) (requests / perSecond * 1e9);
    return new RoundResult(
        requests, elapsedNanos, Latency.percentiles(micros), Map.of(), null, null);
  }

  /**
   * The percentile distribution comes first and always ends at 100 %, so the first line at or above
   * 99.9 % is its own, never one of the cumulative distribution printed after it.
   */
  private static Optional<Double> p999(String text) {
    Matcher m = PERCENTILE.matcher(text);
    while (m.find()) {
      if (Double.parseDouble(m.group(1)) >= 99.9) {
        return Optional.of(millisToMicros(m.group(2)));
      }
    }
    return Optional.empty();
  }

  private static double millisToMicros(String millis) {
    return Double.parseDouble(millis) * 1_000;
  }

  private static String tail(String text, int chars) {
    return text.length() <= chars ? text : "..." + text.substring(text.length() - chars);
  }

  @Override
  public void close() {
    // Every round's process is stopped when its round ends; nothing else is held.
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "redis-benchmark %s on port %d, -P %d",
        String.join(" ", command),
        port,
        pipeline);
  }
}
