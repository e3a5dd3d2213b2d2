package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.grid.DecideProcessor;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.pipeline.KeyCommand;
import dev.sluice.core.pipeline.KeyOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Flat combining of a client's synchronous decisions ({@link SyncCombiner}) against two real
 * members: calls that meet while one is in flight travel as one batch, each key decided once; a
 * call that times out before its turn was never counted; a member that refuses the batch message
 * counts nothing and sends its callers the single-key way. A held partition thread ({@link
 * PartitionHold}) keeps the first call in flight while the others queue, so what travels together
 * is fixed, not left to timing.
 */
class SyncCombinerTest {
  private static final long LONG_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private static GridTestCluster cluster;
  private static HazelcastInstance client;
  private static HazelcastInstance owner;
  private static UUID ownerId;

  private final ExecutorService callers = Executors.newCachedThreadPool();

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = GridTestCluster.start(2);
    client = cluster.newClient();
    cluster.limiter(0).rules().put(new Rule("combine", Policy.of(2, Duration.ofMinutes(1))));
    cluster.awaitSafe();
    owner = cluster.members.get(0);
    ownerId = owner.getCluster().getLocalMember().getUuid();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @AfterEach
  void stopCallers() {
    callers.shutdownNow();
  }

  @Test
  void callsThatMeetWhileOneIsInFlight_travelAsOneBatch_eachKeyDecidedOnce() throws Exception {
    SyncCombiner combiner = combiner(invoker());
    List<String> keys = keysOwnedByTheOwner(11);
    List<Future<KeyOutcome>> queued = new ArrayList<>();
    Future<KeyOutcome> first;
    PartitionHold hold = PartitionHold.on(owner, keys.get(0));
    try {
      first = callers.submit(() -> decide(combiner, keys.get(0), LONG_NANOS));
      await(() -> combiner.invocations() == 1);
      for (String key : keys.subList(1, 11)) {
        queued.add(callers.submit(() -> decide(combiner, key, LONG_NANOS)));
      }
      await(() -> combiner.queued() == 10);
    } finally {
      hold.close();
    }

    assertThat(first.get(30, TimeUnit.SECONDS).decision(0).remaining()).isEqualTo(1);
    for (Future<KeyOutcome> answer : queued) {
      Decision decision = answer.get(30, TimeUnit.SECONDS).decision(0);
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.remaining()).isEqualTo(1);
    }
    // The first call went alone, the ten that queued behind it as one batch.
    assertThat(combiner.invocations()).isEqualTo(2);
    // Each key was counted once: one of its two permits is left.
    for (String key : keys) {
      assertThat(decide(combiner, key, LONG_NANOS).decision(0).remaining()).as(key).isZero();
    }
  }

  @Test
  void sameKeyQueuedThreeTimes_travelsAsOneCommand_andIsLimited() throws Exception {
    SyncCombiner combiner = combiner(invoker());
    List<String> keys = keysOwnedByTheOwner(2);
    List<Future<KeyOutcome>> queued = new ArrayList<>();
    Future<KeyOutcome> first;
    PartitionHold hold = PartitionHold.on(owner, keys.get(0));
    try {
      first = callers.submit(() -> decide(combiner, keys.get(0), LONG_NANOS));
      await(() -> combiner.invocations() == 1);
      for (int i = 0; i < 3; i++) {
        queued.add(callers.submit(() -> decide(combiner, keys.get(1), LONG_NANOS)));
      }
      await(() -> combiner.queued() == 3);
    } finally {
      hold.close();
    }

    assertThat(first.get(30, TimeUnit.SECONDS).decision(0).allowed()).isTrue();
    List<String> answers = new ArrayList<>();
    for (Future<KeyOutcome> answer : queued) {
      Decision decision = answer.get(30, TimeUnit.SECONDS).decision(0);
      answers.add(decision.allowed() + "/" + decision.remaining());
    }
    // Limit 2: the three calls on one key, in one atomic step, admit two and deny the third.
    assertThat(answers).containsExactlyInAnyOrder("true/1", "true/0", "false/0");
    assertThat(combiner.invocations()).isEqualTo(2);
  }

  @Test
  void callTimingOutBeforeItsTurn_leavesTheQueue_andIsNeverCounted() throws Exception {
    SyncCombiner combiner = combiner(invoker());
    List<String> keys = keysOwnedByTheOwner(2);
    Future<KeyOutcome> first;
    PartitionHold hold = PartitionHold.on(owner, keys.get(0));
    try {
      first = callers.submit(() -> decide(combiner, keys.get(0), LONG_NANOS));
      await(() -> combiner.invocations() == 1);

      assertThatThrownBy(() -> decide(combiner, keys.get(1), TimeUnit.MILLISECONDS.toNanos(100)))
          .isInstanceOf(TimeoutException.class)
          .hasMessageContaining("nothing was counted");
      assertThat(combiner.queued()).isZero();
    } finally {
      hold.close();
    }

    assertThat(first.get(30, TimeUnit.SECONDS).decision(0).allowed()).isTrue();
    // The timed-out call never travelled: the key's first admission leaves one of two.
    assertThat(decide(combiner, keys.get(1), LONG_NANOS).decision(0).remaining()).isEqualTo(1);
    assertThat(combiner.invocations()).isEqualTo(2);
  }

  @Test
  void memberWithoutTheBatchMessage_countsNothing_andSendsItsCallersTheSingleKeyWay()
      throws Exception {
    ClientBatchInvoker older =
        ClientBatchInvoker.of(
            client, SluiceHazelcast.STATE_MAP, DecideBatchCodec.REQUEST_MESSAGE_TYPE + 0x1000);
    SyncCombiner combiner = combiner(older);
    List<String> keys = keysOwnedByTheOwner(3);
    List<Future<KeyOutcome>> queued = new ArrayList<>();
    Future<KeyOutcome> first;
    PartitionHold hold = PartitionHold.on(owner, keys.get(0));
    try {
      first = callers.submit(() -> decide(combiner, keys.get(0), LONG_NANOS));
      await(() -> combiner.invocations() == 1);
      for (String key : keys.subList(1, 3)) {
        queued.add(callers.submit(() -> decide(combiner, key, LONG_NANOS)));
      }
      await(() -> combiner.queued() == 2);
    } finally {
      hold.close();
    }

    // The lone first call is a single-key invocation, which every member knows.
    assertThat(first.get(30, TimeUnit.SECONDS)).isNotNull();
    for (Future<KeyOutcome> answer : queued) {
      assertThat(answer.get(30, TimeUnit.SECONDS)).as("go another way").isNull();
    }
    assertThat(older.isUnsupported()).isTrue();
    for (String key : keys.subList(1, 3)) {
      KeyOutcome alone =
          ClientKeyInvoker.of(client, SluiceHazelcast.STATE_MAP)
              .submitToKey(key, new DecideProcessor(command(key)), 30, TimeUnit.SECONDS);
      assertThat(alone.decision(0).remaining()).as("%s was not counted", key).isEqualTo(1);
    }
  }

  @Test
  void clientLimiterWithSyncBatching_manyThreadsOnFewKeys_admitsExactlyTheLimit() throws Exception {
    GridRateLimiter limiter =
        cluster.limiter(client, GridRateLimiter.Options.defaults().withBatchSync(true));
    String prefix = "busy" + PREFIXES.incrementAndGet() + "-";
    Map<String, AtomicInteger> admitted = new ConcurrentHashMap<>();
    List<Future<?>> threads = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      int seed = t;
      threads.add(
          callers.submit(
              () -> {
                for (int i = 0; i < 100; i++) {
                  String key = prefix + ((seed * 7 + i) % 20);
                  if (limiter.tryAcquire("combine", key).allowed()) {
                    admitted.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> thread : threads) {
      thread.get(60, TimeUnit.SECONDS);
    }

    assertThat(admitted).hasSize(20);
    assertThat(admitted.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(2));
  }

  private static SyncCombiner combiner(ClientBatchInvoker batches) {
    return new SyncCombiner(
        batches, ClientKeyInvoker.of(client, SluiceHazelcast.STATE_MAP), ownerId, 64);
  }

  private static ClientBatchInvoker invoker() {
    return ClientBatchInvoker.of(client, SluiceHazelcast.STATE_MAP);
  }

  private static KeyOutcome decide(SyncCombiner combiner, String stateKey, long timeoutNanos)
      throws TimeoutException {
    return combiner.decide(command(stateKey), partitionOf(stateKey), timeoutNanos);
  }

  private static KeyCommand command(String stateKey) {
    String subject = stateKey.substring(stateKey.indexOf('|') + 1);
    return DecideBatchMessageTest.command("combine", subject, 1);
  }

  private static int partitionOf(String stateKey) {
    return client.getPartitionService().getPartition(stateKey).getPartitionId();
  }

  /** {@code n} fresh state keys of rule {@code combine} owned by {@link #owner}. */
  private static List<String> keysOwnedByTheOwner(int n) {
    String prefix = "k" + PREFIXES.incrementAndGet() + "-";
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      String key = StateKey.of("combine", prefix + i);
      if (client.getPartitionService().getPartition(key).getOwner().getUuid().equals(ownerId)) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within 30 s");
      }
      Thread.sleep(5);
    }
  }
}
