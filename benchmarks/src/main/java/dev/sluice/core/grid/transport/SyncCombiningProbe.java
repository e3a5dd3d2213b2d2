package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.PartitionService;
import dev.sluice.bench.load.ClosedLoopRound;
import dev.sluice.bench.load.NodeProbeArgs;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.StateKey;
import dev.sluice.core.grid.DecideProcessor;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOp;
import dev.sluice.core.pipeline.KeyOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * An experiment for P2 and P3 (issue 7), not a product path: would <em>synchronous</em> client
 * calls get cheaper if the callers that meet combined their keys into one batch message, with no
 * thread of the limiter's own in between?
 *
 * <p>Flat combining: a caller queues its key; if no batch of its lane is in flight it becomes the
 * combiner, takes everything queued, sends one {@link DecideBatchCodec} message, waits for it on
 * its own thread, hands each waiting caller its answer, and wakes the next queued caller to combine
 * the next batch. One batch per lane is in flight, so a key's requests are still decided in order.
 * This is what {@code GridRateLimiter}'s batched synchronous mode lacks: there an answer reaches
 * its caller through the callback executor, one more thread crossing per batch.
 *
 * <p>It lives in Sluice's grid package because it drives the package-private batch invoker.
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * SLUICE_CLUSTER_NAME=probe SLUICE_MEMBER_PORT=15701 SLUICE_REST_PORT=18080 \
 *   SLUICE_RULES_FILE=rules.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &amp;
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.core.grid.SyncCombiningProbe 127.0.0.1:15701 probe $! direct,combined1,combined2
 * </pre>
 *
 * Modes: {@code direct}, one invocation per call waited for with a timeout (the SDK's synchronous
 * path); {@code combinedN}, flat combining over N lanes (keys assigned by partition). Rule {@code
 * bench} (sliding_window, limit 1000000, window 1s), 16 threads, 10,000 uniform keys, rounds
 * interleaved, the first a warm-up.
 */
public final class SyncCombiningProbe {
  private static final int THREADS = 16;
  private static final int KEYS = 10_000;
  private static final int MAX_KEYS_PER_BATCH = 64;
  private static final Duration ROUND = Duration.ofSeconds(5);
  private static final int ROUNDS = 5;
  private static final long TIMEOUT_SECONDS = 10;

  private SyncCombiningProbe() {}

  public static void main(String[] args) throws Exception {
    NodeProbeArgs probe = NodeProbeArgs.parse("SyncCombiningProbe", args);
    HazelcastInstance client = probe.connect();
    long nodePid = probe.nodePid();
    ClientKeyInvoker direct = ClientKeyInvoker.of(client, SluiceHazelcast.STATE_MAP);
    ClientBatchInvoker batches = ClientBatchInvoker.of(client, SluiceHazelcast.STATE_MAP);
    if (direct == null || batches == null) {
      throw new IllegalStateException("not a client");
    }
    UUID member = client.getCluster().getMembers().iterator().next().getUuid();
    PartitionService partitions = client.getPartitionService();
    String[] stateKeys = new String[KEYS];
    int[] partitionIds = new int[KEYS];
    for (int i = 0; i < KEYS; i++) {
      stateKeys[i] = StateKey.of("bench", "key-" + i);
      partitionIds[i] = partitions.getPartition(stateKeys[i]).getPartitionId();
    }

    System.out.println(
        "| mode | round | decisions/s | client CPU µs/decision | node CPU µs/decision"
            + " | keys per batch |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (int round = 0; round < ROUNDS; round++) {
      for (String mode : probe.modes()) {
        Combiner[] lanes = new Combiner[mode.equals("direct") ? 0 : lanesOf(mode)];
        for (int i = 0; i < lanes.length; i++) {
          lanes[i] = new Combiner(batches, member);
        }
        ClosedLoopRound.Result result =
            ClosedLoopRound.run(
                THREADS,
                ROUND,
                nodePid,
                random -> {
                  int k = random.nextInt(KEYS);
                  Decision decision =
                      lanes.length == 0
                          ? direct
                              .<KeyOutcome>submitToKey(
                                  stateKeys[k],
                                  new DecideProcessor(command(stateKeys[k], 1)),
                                  TIMEOUT_SECONDS,
                                  TimeUnit.SECONDS)
                              .decision(0)
                          : lanes[partitionIds[k] % lanes.length].decide(
                              stateKeys[k], partitionIds[k]);
                  if (!decision.allowed()) {
                    throw new IllegalStateException("denied: the rule admits every call here");
                  }
                  return 1;
                });
        if (round > 0) {
          System.out.printf(
              Locale.ROOT,
              "| %s | %d | %,.0f | %.1f | %.1f | %s |%n",
              mode,
              round,
              result.perSecond(),
              result.ownCpuMicros(),
              result.serverCpuMicros(),
              lanes.length == 0 ? "1 (no batch)" : String.format("%.1f", meanBatch(lanes)));
        }
        if (result.failedCalls() > 0) {
          throw new IllegalStateException(result.failedCalls() + " calls failed in " + mode);
        }
      }
    }
    client.shutdown();
  }

  private static int lanesOf(String mode) {
    if (!mode.startsWith("combined")) {
      throw new IllegalArgumentException("unknown mode " + mode);
    }
    return Integer.parseInt(mode.substring("combined".length()));
  }

  /** {@code permits} acquires of one permit each on one key of the rule {@code bench}. */
  private static KeyCommand command(String stateKey, int permits) {
    KeyOp[] ops = new KeyOp[permits];
    Arrays.fill(ops, KeyOp.acquire(1));
    return new KeyCommand(stateKey, PolicyRef.rule("bench"), ops);
  }

  private static double meanBatch(Combiner[] lanes) {
    long keys = 0;
    long sent = 0;
    for (Combiner lane : lanes) {
      keys += lane.keysSent.sum();
      sent += lane.batchesSent.sum();
    }
    return keys / (double) Math.max(1, sent);
  }

  /** One caller's request and, once its batch is back, its answer. */
  private static final class Waiter {
    final String stateKey;
    final int partitionId;
    final Thread thread = Thread.currentThread();
    volatile Decision decision;
    volatile Throwable failure;
    volatile boolean answered;

    Waiter(String stateKey, int partitionId) {
      this.stateKey = stateKey;
      this.partitionId = partitionId;
    }
  }

  /**
   * One lane. Invariant: a waiter that is not answered while its caller holds the lane is still in
   * the queue (the holder takes waiters out only to answer them before it lets go).
   */
  private static final class Combiner {
    private final ClientBatchInvoker invoker;
    private final UUID member;
    private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    final LongAdder batchesSent = new LongAdder();
    final LongAdder keysSent = new LongAdder();

    Combiner(ClientBatchInvoker invoker, UUID member) {
      this.invoker = invoker;
      this.member = member;
    }

    Decision decide(String stateKey, int partitionId) throws ExecutionException {
      Waiter self = new Waiter(stateKey, partitionId);
      queue.add(self);
      while (!self.answered) {
        if (inFlight.compareAndSet(false, true)) {
          if (!self.answered) {
            combine();
          }
          inFlight.set(false);
          Waiter next = queue.peek();
          if (next != null) {
            LockSupport.unpark(next.thread);
          }
        } else {
          LockSupport.park(this);
        }
      }
      if (self.failure != null) {
        throw new ExecutionException(self.failure);
      }
      return self.decision;
    }

    private void combine() {
      Map<String, List<Waiter>> byKey = new LinkedHashMap<>();
      Waiter next;
      while (byKey.size() < MAX_KEYS_PER_BATCH && (next = queue.poll()) != null) {
        byKey.computeIfAbsent(next.stateKey, key -> new ArrayList<>(1)).add(next);
      }
      KeyCommand[] commands = new KeyCommand[byKey.size()];
      int[] partitions = new int[byKey.size()];
      int i = 0;
      for (List<Waiter> forKey : byKey.values()) {
        Waiter first = forKey.get(0);
        partitions[i] = first.partitionId;
        commands[i++] = command(first.stateKey, forKey.size());
      }
      DecideProcessor requests = new DecideProcessor(commands, partitions);
      batchesSent.increment();
      keysSent.add(commands.length);
      Map<String, KeyOutcome> outcomes = null;
      Throwable failure = null;
      try {
        // Completed on the thread that read the answer; this thread waits for it directly.
        outcomes =
            invoker.decide(member, requests, Runnable::run).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (Exception e) {
        failure = e;
      }
      Thread self = Thread.currentThread();
      for (Map.Entry<String, List<Waiter>> forKey : byKey.entrySet()) {
        List<Waiter> waiters = forKey.getValue();
        for (int j = 0; j < waiters.size(); j++) {
          Waiter waiter = waiters.get(j);
          if (failure != null) {
            waiter.failure = failure;
          } else {
            waiter.decision = outcomes.get(forKey.getKey()).decision(j);
          }
          waiter.answered = true;
          if (waiter.thread != self) {
            LockSupport.unpark(waiter.thread);
          }
        }
      }
    }
  }
}
