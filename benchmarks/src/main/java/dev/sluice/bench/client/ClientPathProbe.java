package dev.sluice.bench.client;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.bench.Usage;
import dev.sluice.bench.load.ClosedLoopRound;
import dev.sluice.bench.load.NodeProbeArgs;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.transport.GridTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Where a client decision's time goes: the same closed-loop load (16 threads, 10,000 uniform keys,
 * rule {@code bench}) through each layer of the client path against one running grid node, with
 * decisions per second and the CPU each decision cost in this JVM and in the node's.
 *
 * <p>Modes: {@code direct} = {@link GridRateLimiter#tryAcquire} (one {@code executeOnKey}, no
 * timeout); {@code timed} = one command through the grid limiter's stack with a bounded {@link
 * Deadline} (the SDK's synchronous path, with a timeout); {@code batched} = {@code GridRateLimiter}
 * with synchronous calls sent through its per-member batchers (one {@code submitToKeys} for the
 * calls that meet); {@code sdk} = {@link SluiceClient} with its defaults; {@code sdk-nocoalescing}
 * without per-key coalescing; {@code all16} = {@link GridRateLimiter#tryAcquireAll(List)} of 16
 * distinct keys per call (the batch path: one message per member, as the REST batch endpoint of a
 * client-mode node sends it). A mode's name with {@code -public} appended ({@code timed-public},
 * {@code all16-public}) runs it through the public-API transport ({@link
 * GridTransport.Kind#PUBLIC_API}). Leases are off in every mode. Rounds are interleaved across
 * modes; the first round is a warm-up.
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * SLUICE_CLUSTER_NAME=probe SLUICE_MEMBER_PORT=15701 SLUICE_REST_PORT=18080 \
 *   SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &amp;
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.client.ClientPathProbe 127.0.0.1:15701 probe $! direct,timed,batched,sdk
 * </pre>
 *
 * where {@code rules.yaml} holds the rule {@code bench} (sliding_window, limit 1000000, window 1s)
 * and {@code $!} is the node's pid, whose CPU time is read from {@code /proc} (Linux).
 */
public final class ClientPathProbe {
  private static final int THREADS = 16;
  private static final int KEYS = 10_000;
  private static final Duration ROUND = Duration.ofSeconds(5);
  private static final int ROUNDS = 4;

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      SLUICE_CLUSTER_NAME=probe SLUICE_MEMBER_PORT=15701 SLUICE_REST_PORT=18080 \\
        SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.client.ClientPathProbe 127.0.0.1:15701 probe $! direct,timed,batched,sdk
      """;

  private ClientPathProbe() {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    NodeProbeArgs probe = NodeProbeArgs.parse("ClientPathProbe", args);
    HazelcastInstance hazelcast = probe.connect();
    long nodePid = probe.nodePid();
    Map<String, Mode> modes = new LinkedHashMap<>();
    for (String mode : probe.modes()) {
      modes.put(mode, mode(mode, hazelcast));
    }
    System.out.printf(
        Locale.ROOT,
        "| mode | round | decisions/s | client CPU µs/decision | node CPU µs/decision |%n");
    System.out.println("|---|---:|---:|---:|---:|");
    for (int round = 0; round < ROUNDS; round++) {
      for (Map.Entry<String, Mode> mode : modes.entrySet()) {
        ClosedLoopRound.Result result = run(mode.getValue(), nodePid);
        if (round > 0) {
          System.out.printf(
              Locale.ROOT,
              "| %s | %d | %,.0f | %.1f | %.1f |%n",
              mode.getKey(),
              round,
              result.perSecond(),
              result.ownCpuMicros(),
              result.serverCpuMicros());
        }
      }
    }
    System.exit(0);
  }

  private static final int KEYS_PER_BATCH = 16;
  private static final String PUBLIC_SUFFIX = "-public";

  private static Mode mode(String name, HazelcastInstance hazelcast) {
    Duration timeout = Duration.ofSeconds(10);
    // Leases off: the probe measures the way to the owner. "-public" runs the mode through the
    // public-API transport, to compare with the internal one in the same run.
    boolean publicApi = name.endsWith(PUBLIC_SUFFIX);
    GridRateLimiter.Options options =
        GridRateLimiter.Options.defaults()
            .withLeases(false)
            .withTransport(publicApi ? GridTransport.Kind.PUBLIC_API : GridTransport.Kind.INTERNAL);
    String base = publicApi ? name.substring(0, name.length() - PUBLIC_SUFFIX.length()) : name;
    return switch (base) {
      case "direct" -> {
        GridRateLimiter grid = new GridRateLimiter(hazelcast, options);
        yield Mode.single(key -> grid.tryAcquire("bench", key, 1));
      }
      case "timed" -> {
        GridRateLimiter grid = new GridRateLimiter(hazelcast, options);
        Backend stack = grid.stack().head();
        PolicyRef bench = PolicyRef.rule("bench");
        yield Mode.single(
            key ->
                stack
                    .execute(
                        KeyCommand.of(bench, key, KeyOp.acquire(1)),
                        Deadline.after(timeout.toNanos()))
                    .decision(0));
      }
      case "batched" -> {
        GridRateLimiter grid = new GridRateLimiter(hazelcast, options.withBatchSync(true));
        yield Mode.single(key -> grid.tryAcquire("bench", key, 1));
      }
      case "sdk", "sdk-nocoalescing" -> {
        RateLimiter client =
            SluiceClient.builder()
                .callTimeout(timeout)
                .coalescing(base.equals("sdk"))
                .wrap(new GridRateLimiter(hazelcast, options));
        yield Mode.single(key -> client.tryAcquire("bench", key, 1));
      }
      case "all16" -> {
        GridRateLimiter grid = new GridRateLimiter(hazelcast, options);
        yield random -> {
          // Distinct keys: a batch with one key twice would be decided as one key's two requests.
          Set<String> keys = new LinkedHashSet<>();
          while (keys.size() < KEYS_PER_BATCH) {
            keys.add(key(random));
          }
          List<Check> checks = new ArrayList<>(KEYS_PER_BATCH);
          keys.forEach(key -> checks.add(Check.of("bench", key, 1)));
          return grid.tryAcquireAll(checks);
        };
      }
      default -> throw new IllegalArgumentException("unknown mode " + name);
    };
  }

  private static String key(SplittableRandom random) {
    return "key-" + random.nextInt(KEYS);
  }

  private static ClosedLoopRound.Result run(Mode mode, long nodePid) throws Exception {
    ClosedLoopRound.Result round =
        ClosedLoopRound.run(
            THREADS,
            ROUND,
            nodePid,
            random -> {
              List<Decision> answers = mode.decide(random);
              for (Decision d : answers) {
                if (d.decidedBy() != Decision.DecidedBy.LIMITER) {
                  throw new IllegalStateException("decided by " + d.decidedBy() + ", not the grid");
                }
              }
              return answers.size();
            });
    if (round.failedCalls() > 0) {
      throw new IllegalStateException(
          round.failedCalls()
              + " calls failed or were not decided by the grid: it was unreachable or slow");
    }
    return round;
  }

  /** One call through one mode's path, on keys drawn from {@code random}. */
  @FunctionalInterface
  private interface Mode {
    List<Decision> decide(SplittableRandom random) throws Exception;

    static Mode single(OneKey path) {
      return random -> List.of(path.decide(key(random)));
    }
  }

  /** One decision on one key. */
  @FunctionalInterface
  private interface OneKey {
    Decision decide(String key) throws Exception;
  }
}
