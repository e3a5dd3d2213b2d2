package dev.sluice.core.grid.transport;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.PartitionService;
import dev.sluice.bench.load.ClosedLoopRound;
import dev.sluice.bench.load.NodeProbeArgs;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.grid.DecideProcessor;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOp;
import dev.sluice.core.pipeline.KeyOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/** Probe (issue 18): flat combining of synchronous client calls with up to M batches in flight. */
public final class SyncCombiningProbe {
  private static final int THREADS = 16;
  private static final int KEYS = 10_000;
  private static final int MAX_KEYS_PER_BATCH = 64;
  private static final Duration ROUND = Duration.ofSeconds(5);
  private static final int ROUNDS = 4;
  private static final long TIMEOUT_SECONDS = 10;

  private SyncCombiningProbe() {}

  public static void main(String[] args) throws Exception {
    NodeProbeArgs probe = NodeProbeArgs.parse("SyncCombiningProbe", args);
    HazelcastInstance client = probe.connect();
    long nodePid = probe.nodePid();
    ClientKeyInvoker direct = ClientKeyInvoker.of(client, SluiceHazelcast.STATE_MAP);
    ClientBatchInvoker batches = ClientBatchInvoker.of(client, SluiceHazelcast.STATE_MAP);
    UUID member = client.getCluster().getMembers().iterator().next().getUuid();
    PartitionService partitions = client.getPartitionService();
    PolicyRef ref = PolicyRef.rule("bench");
    KeyCommand[] commands = new KeyCommand[KEYS];
    int[] partitionIds = new int[KEYS];
    for (int i = 0; i < KEYS; i++) {
      commands[i] = KeyCommand.of(ref, "key-" + i, KeyOp.acquire(1));
      partitionIds[i] = partitions.getPartition(commands[i].stateKey()).getPartitionId();
    }
    System.out.println(
        "| mode | round | decisions/s | client CPU µs/decision | node CPU µs/decision | keys per batch |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (int round = 0; round < ROUNDS; round++) {
      for (String mode : probe.modes()) {
        Combiner combiner =
            mode.equals("direct")
                ? null
                : new Combiner(
                    batches, direct, member, Integer.parseInt(mode.substring("combined".length())));
        ClosedLoopRound.Result result =
            ClosedLoopRound.run(
                THREADS,
                ROUND,
                nodePid,
                random -> {
                  int k = random.nextInt(KEYS);
                  Decision decision =
                      combiner == null
                          ? direct
                              .<KeyOutcome>submitToKey(
                                  commands[k].stateKey(),
                                  new DecideProcessor(commands[k]),
                                  TIMEOUT_SECONDS,
                                  TimeUnit.SECONDS)
                              .decision(0)
                          : combiner.decide(commands[k], partitionIds[k]);
                  if (!decision.allowed()) {
                    throw new IllegalStateException("denied");
                  }
                  return 1;
                });
        System.out.printf(
            Locale.ROOT,
            "| %s | %d | %,.0f | %.1f | %.1f | %s |%n",
            mode,
            round,
            result.perSecond(),
            result.ownCpuMicros(),
            result.serverCpuMicros(),
            combiner == null ? "1" : String.format(Locale.ROOT, "%.1f", combiner.meanBatch()));
        if (result.failedCalls() > 0) {
          throw new IllegalStateException(result.failedCalls() + " calls failed in " + mode);
        }
      }
    }
    client.shutdown();
  }

  private static final class Waiter {
    final KeyCommand command;
    final int partitionId;
    final Thread thread = Thread.currentThread();
    volatile Decision decision;
    volatile Throwable failure;
    volatile boolean answered;

    Waiter(KeyCommand command, int partitionId) {
      this.command = command;
      this.partitionId = partitionId;
    }
  }

  private static final class Combiner {
    private final ClientBatchInvoker invoker;
    private final ClientKeyInvoker single;
    private final UUID member;
    private final int maxInFlight;
    private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    final LongAdder batchesSent = new LongAdder();
    final LongAdder keysSent = new LongAdder();

    Combiner(ClientBatchInvoker invoker, ClientKeyInvoker single, UUID member, int maxInFlight) {
      this.invoker = invoker;
      this.single = single;
      this.member = member;
      this.maxInFlight = maxInFlight;
    }

    double meanBatch() {
      return keysSent.sum() / (double) Math.max(1, batchesSent.sum());
    }

    private boolean takeSlot() {
      int now;
      do {
        now = inFlight.get();
        if (now >= maxInFlight) {
          return false;
        }
      } while (!inFlight.compareAndSet(now, now + 1));
      return true;
    }

    Decision decide(KeyCommand command, int partitionId) throws ExecutionException {
      Waiter self = new Waiter(command, partitionId);
      queue.add(self);
      while (!self.answered) {
        if (!queue.isEmpty() && takeSlot()) {
          combine();
          inFlight.decrementAndGet();
          Waiter next = queue.peek();
          if (next != null) {
            LockSupport.unpark(next.thread);
          }
        } else if (!self.answered) {
          LockSupport.park(this);
        }
      }
      if (self.failure != null) {
        throw new ExecutionException(self.failure);
      }
      return self.decision;
    }

    private void combine() {
      List<Waiter> taken = new ArrayList<>();
      java.util.Set<String> keys = new java.util.HashSet<>();
      Waiter next;
      List<Waiter> again = new ArrayList<>();
      while (taken.size() < MAX_KEYS_PER_BATCH && (next = queue.poll()) != null) {
        if (keys.add(next.command.stateKey())) {
          taken.add(next);
        } else {
          again.add(next);
        }
      }
      queue.addAll(again);
      if (taken.isEmpty()) {
        return;
      }
      batchesSent.increment();
      keysSent.add(taken.size());
      Thread me = Thread.currentThread();
      try {
        if (taken.size() == 1) {
          Waiter w = taken.get(0);
          KeyOutcome outcome =
              single.submitToKey(
                  w.command.stateKey(),
                  new DecideProcessor(w.command),
                  TIMEOUT_SECONDS,
                  TimeUnit.SECONDS);
          w.decision = outcome.decision(0);
        } else {
          KeyCommand[] commands = new KeyCommand[taken.size()];
          int[] partitionIds = new int[taken.size()];
          for (int i = 0; i < commands.length; i++) {
            commands[i] = taken.get(i).command;
            partitionIds[i] = taken.get(i).partitionId;
          }
          Map<String, KeyOutcome> outcomes =
              invoker
                  .decide(member, new DecideProcessor(commands, partitionIds), Runnable::run)
                  .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          for (Waiter w : taken) {
            w.decision = outcomes.get(w.command.stateKey()).decision(0);
          }
        }
      } catch (Exception e) {
        for (Waiter w : taken) {
          w.failure = e;
        }
      }
      for (Waiter w : taken) {
        w.answered = true;
        if (w.thread != me) {
          LockSupport.unpark(w.thread);
        }
      }
    }
  }
}
