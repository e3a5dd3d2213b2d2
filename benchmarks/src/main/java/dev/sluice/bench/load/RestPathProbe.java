package dev.sluice.bench.load;

import dev.sluice.bench.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a REST check costs the server: S5's closed-loop load ({@code POST /v1/check}, 16 threads =
 * 16 connections, 10,000 uniform keys, rule {@code bench}) against one or more running servers,
 * rounds interleaved, with decisions per second, the CPU each decision cost the server (from {@code
 * /proc}) and this generator, and the calls that failed (each has a 10 s timeout).
 *
 * <p>CPU per decision is the figure to compare on a shared machine: throughput moves with whatever
 * else runs, the work a request takes does not. Two builds of the grid node side by side, on
 * different ports, give an A/B of a change in the REST path in one run:
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * SLUICE_CLUSTER_NAME=a SLUICE_MEMBER_PORT=15701 SLUICE_REST_PORT=18080 \
 *   SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar before.jar &amp; A=$!
 * SLUICE_CLUSTER_NAME=b SLUICE_MEMBER_PORT=15801 SLUICE_REST_PORT=18180 \
 *   SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar after.jar &amp; B=$!
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.load.RestPathProbe before=18080:$A after=18180:$B
 * </pre>
 *
 * where {@code rules.yaml} holds the rule {@code bench} (sliding_window, limit 1000000, window 1s).
 * The first round of each target is a warm-up and is not printed.
 */
public final class RestPathProbe {
  private static final int THREADS = 16;
  private static final int KEYS = 10_000;
  private static final Duration ROUND = Duration.ofSeconds(5);
  private static final int ROUNDS = 5;

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      SLUICE_CLUSTER_NAME=a SLUICE_MEMBER_PORT=15701 SLUICE_REST_PORT=18080 \\
        SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar before.jar & A=$!
      SLUICE_CLUSTER_NAME=b SLUICE_MEMBER_PORT=15801 SLUICE_REST_PORT=18180 \\
        SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar after.jar & B=$!
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.load.RestPathProbe before=18080:$A after=18180:$B
      """;

  private RestPathProbe() {}

  private record Target(String name, long pid, HttpCheckContender contender) {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    if (args.length == 0) {
      System.err.println("usage: RestPathProbe <name>=<port>:<pid> ...");
      System.exit(2);
    }
    KeySpace keys = KeySpace.uniform("key-", KEYS);
    List<Target> targets = new ArrayList<>();
    for (String arg : args) {
      String[] nameRest = arg.split("=", 2);
      String[] portPid = nameRest[1].split(":", 2);
      int port = Integer.parseInt(portPid[0]);
      targets.add(
          new Target(
              nameRest[0],
              Long.parseLong(portPid[1]),
              new HttpCheckContender(nameRest[0], port, "bench", keys)));
    }
    System.out.println(
        "| server | round | decisions/s | server CPU µs/decision | generator CPU µs/decision"
            + " | failed calls |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (int round = 0; round < ROUNDS; round++) {
      for (Target target : targets) {
        String row = run(target, keys);
        if (round > 0) {
          System.out.printf(Locale.ROOT, "| %s | %d | %s |%n", target.name(), round, row);
        }
      }
    }
  }

  private static String run(Target target, KeySpace keys) throws Exception {
    ClosedLoopRound.Result round =
        ClosedLoopRound.run(
            THREADS,
            ROUND,
            target.pid(),
            random -> {
              target.contender().decide(keys.key(keys.next(random)));
              return 1;
            });
    return String.format(
        Locale.ROOT,
        "%,.0f | %.1f | %.1f | %d",
        round.perSecond(),
        round.serverCpuMicros(),
        round.ownCpuMicros(),
        round.failedCalls());
  }
}
