package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.BatchingBackend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client's batch as one Sluice message ({@link ClientBatchInvoker} to {@link
 * DecideBatchMessageTask}), against three real members: every key decided once on its owner, with
 * its backup stored before the answer, and a member that does not know the message leaves the
 * client on {@code submitToKeys} with nothing counted twice.
 */
class DecideBatchMessageTest {
  private static final int KEYS = 60;
  private static GridTestCluster cluster;
  private static HazelcastInstance client;

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = GridTestCluster.start(3);
    client = cluster.newClient();
    cluster.limiter(0).rules().put(new Rule("batch", Policy.of(2, Duration.ofMinutes(1))));
    cluster.awaitSafe(); // so that the backup count below counts every partition
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void decide_keysOfEveryOwner_eachDecidedOnceAndBackedUpBeforeTheAnswer() throws Exception {
    ClientBatchInvoker invoker = ClientBatchInvoker.of(client, GridNames.STATE_MAP);
    // All keys go to one member, though it owns only about a third of them: the rest are decided
    // on their owners all the same.
    UUID member = cluster.members.get(0).getCluster().getLocalMember().getUuid();
    DecideProcessor first = batch("spread", "batch", 1);
    client.getMap(GridNames.STATE_MAP).clear(); // so the backup count is this test's alone

    Map<String, KeyOutcome> outcomes =
        invoker.decide(member, first, Runnable::run).get(30, TimeUnit.SECONDS);

    assertThat(outcomes).hasSize(KEYS);
    for (int i = 0; i < first.size(); i++) {
      String key = first.key(i);
      assertThat(outcomes.get(key).decision(0).remaining()).as(key).isEqualTo(1);
    }
    // Synchronous backups: each key's backup is there the moment the batch is answered.
    assertThat(ownedEntries("spread")).isEqualTo(KEYS);
    assertThat(cluster.backupEntries()).isEqualTo(KEYS);

    Map<String, KeyOutcome> again =
        invoker
            .decide(member, batch("spread", "batch", 1, 1), Runnable::run)
            .get(30, TimeUnit.SECONDS);
    for (KeyOutcome outcome : again.values()) {
      assertThat(outcome.decision(0).remaining()).isZero();
      assertThat(outcome.decision(1).allowed()).isFalse();
    }
  }

  @Test
  void decide_unknownRule_answersPerKeyAndCountsNothing() throws Exception {
    ClientBatchInvoker invoker = ClientBatchInvoker.of(client, GridNames.STATE_MAP);
    UUID member = cluster.members.get(1).getCluster().getLocalMember().getUuid();

    Map<String, KeyOutcome> outcomes =
        invoker
            .decide(member, batch("unknown", "no-such-rule", 1), Runnable::run)
            .get(30, TimeUnit.SECONDS);

    assertThat(outcomes).hasSize(KEYS);
    for (KeyOutcome outcome : outcomes.values()) {
      assertThatThrownBy(() -> outcome.decision(0)).isInstanceOf(UnknownRuleException.class);
    }
    assertThat(ownedEntries("unknown")).isZero();
  }

  @Test
  void decide_emptyBatch_answersEmpty() throws Exception {
    ClientBatchInvoker invoker = ClientBatchInvoker.of(client, GridNames.STATE_MAP);
    UUID member = cluster.members.get(2).getCluster().getLocalMember().getUuid();

    assertThat(
            invoker
                .decide(member, new DecideProcessor(new KeyCommand[0], new int[0]), Runnable::run)
                .get(30, TimeUnit.SECONDS))
        .isEmpty();
  }

  @Test
  void decide_memberWithoutTheMessage_failsUnsupportedAndCountsNothing() throws Exception {
    ClientBatchInvoker older = unknownToMembers();
    UUID member = cluster.members.get(0).getCluster().getLocalMember().getUuid();

    CompletableFuture<Map<String, KeyOutcome>> answer =
        older.decide(member, batch("older", "batch", 1), Runnable::run);

    assertThatThrownBy(() -> answer.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(UnsupportedOperationException.class);
    assertThat(older.isUnsupported()).isTrue();
    assertThat(ownedEntries("older")).isZero();
  }

  @Test
  void batchingLane_memberWithoutTheMessage_fallsBackToSubmitToKeys() throws Exception {
    ClientBatchInvoker older = unknownToMembers();
    UUID member = cluster.members.get(0).getCluster().getLocalMember().getUuid();
    IMap<String, StateValue> states = client.getMap(GridNames.STATE_MAP);
    BatchDelivery delivery =
        BatchDelivery.fromClient(older, member, Runnable::run, BatchDelivery.submitToKeys(states));
    BatchingBackend lanes =
        new BatchingBackend(
            new GridRateLimiter(client).stack().storage(),
            new OneMemberLane(delivery),
            BatchingBackend.SyncCalls.LANES,
            true,
            256);

    List<CompletableFuture<KeyOutcome>> answers = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 5; i++) {
        answers.add(lanes.executeAsync(command("batch", "fallback-" + i, 1), Deadline.NONE));
      }
    }

    List<Decision> decisions = new ArrayList<>();
    for (CompletableFuture<KeyOutcome> answer : answers) {
      decisions.add(answer.get(30, TimeUnit.SECONDS).decision(0));
    }
    assertThat(older.isUnsupported()).isTrue();
    // Limit 2 per key: rounds 1 and 2 allowed, round 3 denied. A batch counted twice (once by the
    // refused message, once by the fallback) would deny round 2.
    assertThat(decisions.subList(0, 10)).allMatch(Decision::allowed);
    assertThat(decisions.subList(10, 15)).noneMatch(Decision::allowed);
  }

  /** Every command in one lane, delivered to one member by {@code delivery}. */
  private record OneMemberLane(BatchDelivery delivery) implements BatchingBackend.Lanes {
    @Override
    public Object laneOf(KeyCommand command) {
      return this;
    }

    @Override
    public CompletionStage<Map<String, KeyOutcome>> send(
        Object lane, KeyCommand[] batch, Executor completions) {
      int[] unknownPartitions = new int[batch.length];
      java.util.Arrays.fill(unknownPartitions, -1);
      return delivery.deliver(new DecideProcessor(batch, unknownPartitions));
    }

    @Override
    public Executor callbacks() {
      return Runnable::run;
    }
  }

  @Test
  void batchAnswer_callbackMayCallTheGridSynchronously() throws Exception {
    // A client reads answers on its own network threads; a callback that waited there for another
    // answer would wait for itself. The answer must reach the caller's callback elsewhere.
    GridRateLimiter limiter = new GridRateLimiter(client);
    Decision afterwards = GridTestCluster.decideAgainFromBatchCallback(limiter, "batch");

    assertThat(afterwards.allowed()).isTrue();
    assertThat(afterwards.remaining()).isZero();
  }

  private static ClientBatchInvoker unknownToMembers() {
    return ClientBatchInvoker.of(
        client, GridNames.STATE_MAP, DecideBatchCodec.REQUEST_MESSAGE_TYPE + 0x1000);
  }

  /** One command per key, {@link #KEYS} keys. */
  private static DecideProcessor batch(String prefix, String rule, long... permits) {
    KeyCommand[] commands = new KeyCommand[KEYS];
    for (int i = 0; i < KEYS; i++) {
      commands[i] = command(rule, prefix + "-" + i, permits);
    }
    return new DecideProcessor(commands, new int[KEYS]);
  }

  /** Acquires of {@code permits}, in order, on one key. */
  static KeyCommand command(String rule, String subject, long... permits) {
    KeyOp[] ops = new KeyOp[permits.length];
    for (int i = 0; i < permits.length; i++) {
      ops[i] = KeyOp.acquire(permits[i]);
    }
    return new KeyCommand(StateKey.of(rule, subject), PolicyRef.rule(rule), ops);
  }

  /** Owned entries of the state map whose key has the prefix, summed over the members. */
  private static long ownedEntries(String prefix) {
    long total = 0;
    for (HazelcastInstance member : cluster.members) {
      IMap<String, StateValue> states = member.getMap(GridNames.STATE_MAP);
      total += states.localKeySet().stream().filter(k -> k.contains("|" + prefix + "-")).count();
    }
    return total;
  }
}
