package dev.sluice.bench.client;

import dev.sluice.bench.Usage;
import dev.sluice.bench.load.ProcessCpu;
import dev.sluice.bench.load.ZipfSampler;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Where S7's grid calls come from: S7's traffic (16 threads, Zipf s = 1.1 over 100,000 keys, rule
 * {@code skew}: sliding_window 50/1s) through {@link SluiceClient} with its defaults against one
 * running grid node, each key's decisions counted with the ones its owner made ({@link
 * Decision.DecidedBy#LIMITER}), and summed by how often the key was asked in the round. Prints, per
 * round, decisions per second, the share decided by the owner, the CPU a decision cost in this JVM
 * (the load's own work included: the Zipf draw and the counting) and in the node's, and the same
 * share per band of keys: the bands' shares of all decisions, the share of each band's decisions
 * its owner made, and what that adds to the total ("grid points"). The load harness's S7 measures
 * throughput against the peers; this says which keys a change to leases moved.
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * printf 'rules:\n  - name: skew\n    limit: 50\n    window: 1s\n' &gt; /tmp/skew.yaml
 * SLUICE_CLUSTER_NAME=skew SLUICE_MEMBER_PORT=15901 SLUICE_REST_PORT=18901 SLUICE_RLS_PORT=18902 \
 *   SLUICE_RULES_FILE=/tmp/skew.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &amp;
 * java -Xms1g -Xmx2g -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.client.SkewedKeysProbe 127.0.0.1:15901 skew $! 20
 * </pre>
 *
 * where {@code $!} is the node's pid, whose CPU time is read from {@code /proc} (Linux), and 20 the
 * seconds of each of the three rounds (the first warms both JVMs up). Every key of a run has a
 * prefix of its own, so a rerun against the same node starts from fresh state.
 */
public final class SkewedKeysProbe {
  private static final int THREADS = 16;
  private static final int KEYS = 100_000;
  private static final double EXPONENT = 1.1;
  private static final int ROUNDS = 3;
  private static final long MAX_CALLS_PER_THREAD = 50_000_000L;

  /** The lower bounds of the bands, in requests a second per key over the round. */
  private static final double[] BANDS = {0, 0.5, 1, 2, 5, 10, 20, 50, 100};

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      printf 'rules:\\n  - name: skew\\n    limit: 50\\n    window: 1s\\n' > /tmp/skew.yaml
      SLUICE_CLUSTER_NAME=skew SLUICE_MEMBER_PORT=15901 SLUICE_REST_PORT=18901 SLUICE_RLS_PORT=18902 \\
        SLUICE_RULES_FILE=/tmp/skew.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &
      java -Xms1g -Xmx2g -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.client.SkewedKeysProbe 127.0.0.1:15901 skew $! 20
      """;

  private SkewedKeysProbe() {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    if (args.length != 4) {
      System.err.println(
          "usage: SkewedKeysProbe <member host:port> <cluster> <node pid> <seconds>");
      System.exit(2);
    }
    long nodePid = Long.parseLong(args[2]);
    int seconds = Integer.parseInt(args[3]);
    ZipfSampler zipf = new ZipfSampler(KEYS, EXPONENT);
    String prefix = "probe-" + Long.toString(System.nanoTime(), 36) + ":";
    try (SluiceClient client =
        SluiceClient.builder()
            .addresses(args[0])
            .clusterName(args[1])
            .callTimeout(Duration.ofSeconds(5))
            .build()) {
      for (int round = 0; round < ROUNDS; round++) {
        round(client, zipf, prefix, seconds, nodePid, round);
      }
    }
  }

  private static void round(
      SluiceClient client, ZipfSampler zipf, String prefix, int seconds, long nodePid, int round)
      throws Exception {
    AtomicLongArray decisions = new AtomicLongArray(KEYS);
    AtomicLongArray byOwner = new AtomicLongArray(KEYS);
    long ownCpuBefore = ProcessCpu.ownNanos();
    long nodeCpuBefore = ProcessCpu.ofPid(nodePid);
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      SplittableRandom random = new SplittableRandom(round * 1_000L + t);
      Thread thread =
          new Thread(
              () -> {
                for (long n = 0; n < MAX_CALLS_PER_THREAD && System.nanoTime() < deadline; n++) {
                  int rank = zipf.next(random);
                  Decision decision = client.tryAcquire("skew", prefix + rank);
                  decisions.incrementAndGet(rank);
                  if (decision.decidedBy() == Decision.DecidedBy.LIMITER) {
                    byOwner.incrementAndGet(rank);
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    long ownCpu = ProcessCpu.ownNanos() - ownCpuBefore;
    long nodeCpu = ProcessCpu.ofPid(nodePid) - nodeCpuBefore;

    long total = 0;
    long owner = 0;
    long[] bandDecisions = new long[BANDS.length];
    long[] bandByOwner = new long[BANDS.length];
    for (int rank = 0; rank < KEYS; rank++) {
      long d = decisions.get(rank);
      total += d;
      owner += byOwner.get(rank);
      int band = 0;
      while (band + 1 < BANDS.length && d >= BANDS[band + 1] * seconds) {
        band++;
      }
      bandDecisions[band] += d;
      bandByOwner[band] += byOwner.get(rank);
    }
    if (total == 0) {
      throw new IllegalStateException("no decision in round " + round);
    }
    System.out.printf(
        Locale.ROOT,
        "round %d: %,d decisions/s, %.2f %% by the owner, client CPU %.1f µs/decision,"
            + " node CPU %.1f µs/decision%n",
        round,
        total / seconds,
        100.0 * owner / total,
        ownCpu / 1_000.0 / total,
        nodeCpu / 1_000.0 / total);
    System.out.println("| requests/s per key | share of decisions | by the owner | grid points |");
    System.out.println("|---|---:|---:|---:|");
    for (int band = 0; band < BANDS.length; band++) {
      String range =
          band + 1 < BANDS.length
              ? String.format(Locale.ROOT, "%s to %s", BANDS[band], BANDS[band + 1])
              : String.format(Locale.ROOT, "%s or more", BANDS[band]);
      System.out.printf(
          Locale.ROOT,
          "| %s | %.2f %% | %.1f %% | %.2f |%n",
          range,
          100.0 * bandDecisions[band] / total,
          bandDecisions[band] == 0 ? 0 : 100.0 * bandByOwner[band] / bandDecisions[band],
          100.0 * bandByOwner[band] / total);
    }
  }
}
