package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.impl.ClientEngine;
import com.hazelcast.client.impl.ClientEngineImpl;
import com.hazelcast.client.impl.CompositeMessageTaskFactory;
import com.hazelcast.client.impl.protocol.MessageTaskFactory;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.serialization.impl.SerializationConstants;
import com.hazelcast.internal.util.collection.Int2ObjectHashMap;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapInterceptor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import com.hazelcast.partition.Partition;
import com.hazelcast.spi.impl.operationexecutor.OperationExecutor;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch in which one key's operation FAILS on its owner (an exception, not a denial), on three
 * real members: from an embedded member ({@link MemberBatchDecider} via {@link
 * BatchDelivery#fromMember}) and from a client (one {@link DecideBatchCodec} message, {@link
 * ClientBatchInvoker}, {@link BatchDelivery#fromClient}), both behind the per-owner lanes of {@link
 * GridRateLimiter}'s batching layer ({@link dev.sluice.core.backend.BatchingBackend}).
 *
 * <h2>How a key is made to fail</h2>
 *
 * A {@link MapInterceptor} on the state map throws from {@code interceptPut}, which Hazelcast calls
 * on the owner when an entry processor stores its new value; the entry operation then fails and
 * nothing is stored for that key ("throwing an exception will cancel the put operation", says the
 * interface). {@code interceptPut} sees the old and new values but not the key, so the poisoned
 * keys are picked by their value: the states of the rule {@value #POISON} (its own window, hence
 * its own {@link CompiledPolicy#fingerprint}). Every other key is decided as usual.
 *
 * <h2>What a failed batch does to its other keys</h2>
 *
 * Each key is its own operation, so the other keys of the batch are decided and counted on their
 * owners all the same; the batch answers with the failure once every key's operation has finished
 * (not the moment the poisoned key fails, which would free the lane for the next batch while some
 * of this one's keys are still to be decided), and every caller in the batch gets that failure.
 * Nothing is sent again: each other key is counted exactly once, and the next batch counts it once
 * more.
 *
 * <h2>Two networks</h2>
 *
 * This class runs the tests over Hazelcast's in-memory network; {@link BatchFailureTcpTest} runs
 * the same tests over real TCP on loopback, where the answers arrive on the network's own threads.
 * Each class starts its cluster once ({@link #startCluster}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchFailureTest {
  private static final String RULE = "each";
  private static final String POISON = "poison";
  private static final String SLOW = "slow";
  private static final long LIMIT = 5;
  private static final int NORMAL_KEYS = 6;
  private static final String REFUSAL = "the test's interceptor refuses every state of the poison";

  /** Who sends the batch, and where its keys live. */
  enum Route {
    /** An embedded member's batch to itself: the poisoned key fails on a partition thread. */
    MEMBER_OWNER_HERE(0, 0, 2),
    /** An embedded member's batch to another member: the failure arrives on a response thread. */
    MEMBER_OWNER_ELSEWHERE(0, 1, 2),
    /** A client's batch message: the member fails the message, the client reads the error. */
    CLIENT(-1, 1, 1);

    final int sender;
    final int owner;

    /**
     * Who owns the key the failure callback then decides synchronously. From a member's partition
     * or response thread a call to another member is refused; over a client, the call is answered
     * on the very connection whose reader would be running the callback, and would wait for itself.
     */
    final int callbackKeyOwner;

    Route(int sender, int owner, int callbackKeyOwner) {
      this.sender = sender;
      this.owner = owner;
      this.callbackKeyOwner = callbackKeyOwner;
    }
  }

  private GridTestCluster cluster;
  private HazelcastInstance client;
  private String interceptorId;
  private static final AtomicInteger prefixes = new AtomicInteger();

  /**
   * Where the owner's interceptor waits before refusing a state (at most 10 s). The interceptor is
   * a copy made by Hazelcast, but the members run in this JVM and share this field.
   */
  private static volatile CountDownLatch gate = new CountDownLatch(0);

  /** How many states the interceptor has refused so far, on any member. */
  private static final AtomicInteger refusals = new AtomicInteger();

  /** Where the owner's interceptor holds a state of the rule {@value #SLOW} (at most 10 s). */
  private static volatile CountDownLatch slowGate = new CountDownLatch(0);

  /** Three members on the network under test. */
  GridTestCluster startCluster() {
    return GridTestCluster.start(3);
  }

  @BeforeAll
  void start() throws InterruptedException {
    cluster = startCluster();
    client = cluster.newClient();
    GridRateLimiter setup = cluster.limiter(0);
    setup.rules().put(new Rule(RULE, Policy.of(LIMIT, Duration.ofMinutes(1))));
    Policy poison = Policy.of(LIMIT, Duration.ofSeconds(77));
    setup.rules().put(new Rule(POISON, poison));
    Policy slow = Policy.of(LIMIT, Duration.ofSeconds(78));
    setup.rules().put(new Rule(SLOW, slow));
    IMap<String, StateValue> states = cluster.members.get(0).getMap(GridNames.STATE_MAP);
    interceptorId =
        states.addInterceptor(
            new InterceptStates(
                CompiledPolicy.fingerprint(poison), CompiledPolicy.fingerprint(slow)));
    cluster.awaitSafe(); // so that the owners picked below stay the owners
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.members.get(0).getMap(GridNames.STATE_MAP).removeInterceptor(interceptorId);
      cluster.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void tryAcquireAllAsync_oneKeyFailsOnItsOwner_failsWithTheOwnersCause(Route route)
      throws Exception {
    Batch batch = batch(route);

    CompletableFuture<List<Decision>> answer = batch.sendFailing();

    // Every caller of the batch gets the owner's exception, its type and message intact (over a
    // client too), within a bounded time.
    assertRefused(answer);
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void failureCallback_runsOffHazelcastThreads_andMayCallTheGridSynchronously(Route route)
      throws Exception {
    Batch batch = batch(route);
    String again = subjectOwnedBy(RULE, route.callbackKeyOwner, "from-callback-" + route);
    AtomicReference<String> callbackThread = new AtomicReference<>();
    AtomicReference<Throwable> seen = new AtomicReference<>();

    Decision fromCallback =
        batch
            .sendFailing(
                answer ->
                    answer.handle(
                        (decisions, failure) -> {
                          callbackThread.set(wrongThread());
                          seen.set(failure);
                          return batch.limiter.tryAcquire(RULE, again, 1);
                        }))
            .get(10, TimeUnit.SECONDS);

    assertThat(seen.get()).as("the batch's failure").isNotNull();
    assertThat(callbackThread.get()).as("where the failure callback ran").isNull();
    assertThat(fromCallback.allowed()).isTrue();
    assertThat(fromCallback.remaining()).isEqualTo(LIMIT - 1);
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void nextBatch_afterAFailedBatchOnTheSameLane_isDecided(Route route) throws Exception {
    Batch batch = batch(route);
    assertRefused(batch.sendFailing());

    // One lane per member: the same batching lane that carried the failed batch carries these.
    // A lane left busy by the failure would never send them.
    List<Decision> again =
        batch.limiter.tryAcquireAllAsync(batch.normal()).get(10, TimeUnit.SECONDS);
    Decision single =
        batch
            .limiter
            .tryAcquireAsync(Check.of(RULE, batch.subjects.get(0)))
            .get(10, TimeUnit.SECONDS);

    assertThat(again).hasSize(NORMAL_KEYS).allMatch(Decision::allowed);
    assertThat(single.allowed()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void otherKeys_ofAFailedBatch_areCountedExactlyOnceAndNeverRetried(Route route) throws Exception {
    Batch batch = batch(route);
    GridRateLimiter peeker = cluster.limiter(2);

    assertRefused(batch.sendFailing());

    // The batch answers once every key's operation has finished: each other key has landed, once.
    // The poisoned key stored nothing.
    for (String subject : batch.subjects) {
      assertThat(peeker.peek(RULE, subject).remaining()).as(subject).isEqualTo(LIMIT - 1);
    }
    assertThat(peeker.peek(POISON, batch.poisoned).remaining()).isEqualTo(LIMIT);

    // The next batch on the same keys sees one earlier permit per key, not two: the failed batch
    // was not sent again (by the batcher, by the fallback to submitToKeys, or by Hazelcast).
    List<Decision> next =
        batch.limiter.tryAcquireAllAsync(batch.normal()).get(10, TimeUnit.SECONDS);
    assertThat(next).extracting(Decision::remaining).containsOnly(LIMIT - 2);
    for (String subject : batch.subjects) {
      assertThat(peeker.peek(RULE, subject).remaining()).as(subject).isEqualTo(LIMIT - 2);
    }
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void failedBatch_answersOnlyOnceItsOtherKeysAreDecided(Route route) throws Exception {
    Batch batch = batch(route);
    String slow = slowSubjectBesidesThePoison(route, batch);
    List<Check> checks = batch.checks();
    checks.add(Check.of(SLOW, slow));
    // The second batch's limiter reads the poison rule before the gate holds a partition thread:
    // a limiter reads a batch's rules before sending it, and the rule's record may live on the
    // partition thread the gate holds, which would hold that read up, not the answer under test.
    GridRateLimiter alone = aloneLimiter(route);
    assertRefused(poisonedAlone(alone, batch));
    int refusedBefore = refusals.get();
    CountDownLatch release = new CountDownLatch(1);
    slowGate = release;
    CompletableFuture<List<Decision>> answer;
    try {
      // t=0: the batch leaves; on the owner the slow key's put waits at the gate, on one partition
      // thread, while the poisoned key fails on another.
      answer = offHazelcastThreads(batch.limiter.tryAcquireAllAsync(checks));
      // t=1: the poisoned key has failed. Its failure must wait for the slow key: a batch that
      // answered now would free its lane while one of its keys is still to be decided.
      awaitRefusalAfter(refusedBefore);
      // t=1.5: a second batch, of the poisoned key alone, from the same sender on a limiter (and
      // lane) of its own, fails on the same partition thread after the first one's poisoned key,
      // and its failure travels back the way the first batch's would: once it has reached its
      // caller, an answer that did not wait for the slow key would have reached its caller too.
      assertRefused(poisonedAlone(alone, batch));
      assertThat(answer).as("the batch while one of its keys waits").isNotDone();
    } finally {
      release.countDown();
    }

    // t=2: the slow key is decided, then the batch fails, with everything counted already.
    assertRefused(answer);
    assertThat(cluster.limiter(2).peek(SLOW, slow).remaining()).isEqualTo(LIMIT - 1);
  }

  @ParameterizedTest
  @EnumSource(Route.class)
  void everyCaller_ofAFailedBatch_getsTheFailure_thoughTheOtherKeysWereCounted(Route route)
      throws Exception {
    Batch batch = batch(route);
    GridRateLimiter peeker = cluster.limiter(2);
    List<CompletableFuture<Decision>> calls = new ArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    gate = release;
    CompletableFuture<List<Decision>> first;
    try {
      // t=0: a batch of the poisoned key alone holds the lane (its owner waits at the gate).
      first =
          offHazelcastThreads(
              batch.limiter.tryAcquireAllAsync(List.of(Check.of(POISON, batch.poisoned))));
      // t=1: one call per key, poisoned key among them, queue behind it: the next batch.
      for (Check check : batch.checks()) {
        calls.add(offHazelcastThreads(batch.limiter.tryAcquireAsync(check)));
      }
      assertThat(first).isNotDone();
    } finally {
      release.countDown();
    }

    // t=2: both batches fail on the poisoned key, and each call of the second gets that failure,
    // though its key was decided and counted on the owner.
    assertRefused(first);
    for (CompletableFuture<Decision> call : calls) {
      assertRefused(call);
    }
    for (String subject : batch.subjects) {
      assertThat(peeker.peek(RULE, subject).remaining()).as(subject).isEqualTo(LIMIT - 1);
    }
    assertThat(peeker.peek(POISON, batch.poisoned).remaining()).isEqualTo(LIMIT);
  }

  @Test
  void interceptStates_travelsAsDataSerializable_notJavaSerialized() {
    SerializationService serialization =
        ((HazelcastInstanceProxy) cluster.members.get(0)).getOriginal().getSerializationService();

    Data data = serialization.toData(new InterceptStates(42, 43));

    assertThat(data.getType()).isEqualTo(SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE);
    InterceptStates copy = serialization.toObject(data);
    assertThat(copy.fingerprint).isEqualTo(42);
    assertThat(copy.slowFingerprint).isEqualTo(43);
  }

  @Test
  void clientBatch_failsAfterAnotherMemberRefusedTheMessage_isNotSentAgain() throws Exception {
    // A rolling upgrade: member 2 does not know Sluice's batch message yet. The client's limiter
    // learns that from member 2 while a batch to member 1 is in flight, and goes to submitToKeys
    // for good; the batch to member 1 then fails for a reason of its own. Only the refusal means
    // "nothing was decided, send it the other way": this batch's other keys were decided on member
    // 1, and sending it again would count them twice.
    Batch batch = batch(Route.CLIENT);
    String onOlder = subjectOwnedBy(RULE, 2, "older-" + batch.subjects.get(0));
    CompletableFuture<List<Decision>> failed;
    OlderMember older = OlderMember.of(cluster.members.get(2));
    try {
      CountDownLatch release = new CountDownLatch(1);
      gate = release;
      try {
        failed = offHazelcastThreads(batch.limiter.tryAcquireAllAsync(batch.checks()));
        // t=1: member 2 refuses the message; the call is decided by submitToKeys all the same.
        Decision viaFallback =
            batch.limiter.tryAcquireAsync(Check.of(RULE, onOlder)).get(10, TimeUnit.SECONDS);
        assertThat(viaFallback.remaining()).isEqualTo(LIMIT - 1);
        assertThat(failed).as("the batch to member 1, still held").isNotDone();
      } finally {
        // t=2: the poisoned key fails on member 1.
        release.countDown();
      }
      assertRefused(failed);
    } finally {
      older.close();
    }

    GridRateLimiter peeker = cluster.limiter(2);
    for (String subject : batch.subjects) {
      assertThat(peeker.peek(RULE, subject).remaining()).as(subject).isEqualTo(LIMIT - 1);
    }
    List<Decision> next =
        batch.limiter.tryAcquireAllAsync(batch.normal()).get(10, TimeUnit.SECONDS);
    assertThat(next).extracting(Decision::remaining).containsOnly(LIMIT - 2);
  }

  /**
   * {@code answer} as its caller sees it, or an {@link AssertionError} if it reached the caller on
   * any thread but the limiter's callback executor's ({@link #wrongThread}). Attach it before the
   * answer can come.
   */
  private static <T> CompletableFuture<T> offHazelcastThreads(CompletableFuture<T> answer) {
    // An answer complete before this attaches runs the check on the caller's own thread: that is
    // no Hazelcast thread (a batch that fails fast on a loaded machine can get there first).
    Thread caller = Thread.currentThread();
    return answer.handle(
        (value, failure) -> {
          String wrong = Thread.currentThread() == caller ? null : wrongThread();
          if (wrong != null) {
            throw new AssertionError("the batch answered its caller " + wrong);
          }
          if (failure != null) {
            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
          }
          return value;
        });
  }

  /**
   * A limiter of its own on the route's sender, so that a batch through it does not queue behind a
   * batch held on the other limiter's lane.
   */
  private GridRateLimiter aloneLimiter(Route route) {
    HazelcastInstance sender = route.sender < 0 ? client : cluster.members.get(route.sender);
    return cluster.limiter(sender, GridRateLimiter.Options.defaults().withLanesPerMember(1));
  }

  /** A batch of {@code batch}'s poisoned key alone through {@code limiter}. */
  private static CompletableFuture<List<Decision>> poisonedAlone(
      GridRateLimiter limiter, Batch batch) {
    return offHazelcastThreads(
        limiter.tryAcquireAllAsync(List.of(Check.of(POISON, batch.poisoned))));
  }

  /** Asserts that {@code answer} fails within 10 s with the interceptor's refusal. */
  private static void assertRefused(CompletableFuture<?> answer) {
    assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(REFUSAL);
  }

  /**
   * Null if this thread is one of the limiter's callback executor's (Hazelcast's default async
   * executor, a {@link ForkJoinPool}), else where it runs. Hazelcast names its own threads "hz.":
   * {@code hz.<member>.partition-operation.thread-1}, {@code hz.<member>.response-0}, and over TCP
   * a client's reader {@code hz.hz.client_1.IO.thread-in-0}; the in-memory network reads a client's
   * answers on plain {@code pool-N-thread-M} threads.
   */
  private static @Nullable String wrongThread() {
    String name = Thread.currentThread().getName();
    if (name.startsWith("hz.")) {
      return "on Hazelcast's thread " + name;
    }
    if (ForkJoinTask.getPool() != AsyncCallbackExecutor.hazelcastDefault()) {
      return "on " + name + ", not on the callback executor";
    }
    return null;
  }

  /**
   * A subject whose key under {@value #SLOW} lives on the route's owner but runs on another of its
   * partition threads than the poisoned key, so that holding it leaves the poisoned key free to
   * fail.
   */
  private String slowSubjectBesidesThePoison(Route route, Batch batch) throws InterruptedException {
    HazelcastInstance owner = cluster.members.get(route.owner);
    OperationExecutor executor =
        ((HazelcastInstanceProxy) owner)
            .getOriginal()
            .node
            .getNodeEngine()
            .getOperationService()
            .getOperationExecutor();
    int poisonThread =
        executor.toPartitionThreadIndex(partitionOf(StateKey.of(POISON, batch.poisoned)));
    for (int i = 0; i < 10_000; i++) {
      String subject = subjectOwnedBy(SLOW, route.owner, batch.poisoned + "-slow-" + i);
      String key = StateKey.of(SLOW, subject);
      if (executor.toPartitionThreadIndex(partitionOf(key)) != poisonThread) {
        if (route.sender < 0) {
          awaitClientKnowsOwners(List.of(key));
        }
        return subject;
      }
    }
    throw new IllegalStateException("no slow key beside the poisoned key's partition thread");
  }

  private int partitionOf(String stateKey) {
    return cluster.members.get(0).getPartitionService().getPartition(stateKey).getPartitionId();
  }

  /** Waits (at most 10 s) until the interceptor has refused a state since {@code before}. */
  private static void awaitRefusalAfter(int before) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (refusals.get() == before) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the poisoned key was not refused within 10 s");
      }
      Thread.sleep(5);
    }
  }

  /**
   * Fresh keys that all live on the route's owner: {@link #NORMAL_KEYS} under {@link #RULE} and one
   * under {@link #POISON}, so that the batcher sends them as one batch to one member.
   */
  private Batch batch(Route route) throws InterruptedException {
    String prefix = route + "-" + prefixes.incrementAndGet();
    HazelcastInstance sender = route.sender < 0 ? client : cluster.members.get(route.sender);
    // One lane per member, so a later batch to this owner reuses the lane of the failed one.
    GridRateLimiter limiter =
        cluster.limiter(sender, GridRateLimiter.Options.defaults().withLanesPerMember(1));
    readRulesFirst(limiter, prefix);
    List<String> subjects = new ArrayList<>();
    for (int i = 0; subjects.size() < NORMAL_KEYS; i++) {
      String subject = prefix + "-" + i;
      if (ownerIndex(StateKey.of(RULE, subject)) == route.owner) {
        subjects.add(subject);
      }
    }
    String poisoned = subjectOwnedBy(POISON, route.owner, prefix + "-poison");
    if (sender == client) {
      List<String> keys = new ArrayList<>();
      subjects.forEach(subject -> keys.add(StateKey.of(RULE, subject)));
      keys.add(StateKey.of(POISON, poisoned));
      awaitClientKnowsOwners(keys);
    }
    return new Batch(limiter, subjects, poisoned);
  }

  /**
   * A client reads the rules a batch names before it sends the batch, asynchronously, and only the
   * first time (RuleCache): read them now, so that the batches under test leave at once and queue
   * on their lane as the timelines above say, not behind a read held up by the gate.
   */
  private static void readRulesFirst(GridRateLimiter limiter, String prefix)
      throws InterruptedException {
    CompletableFuture<List<Decision>> reads =
        limiter
            .tryAcquireAllAsync(
                List.of(
                    Check.of(RULE, prefix + "-rules", 0),
                    Check.of(SLOW, prefix + "-rules", 0),
                    Check.of(POISON, prefix + "-rules", 0)))
            .toCompletableFuture();
    try {
      reads.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException refused) {
      // The poison rule's state is refused by the interceptor: the rules were read all the same.
    } catch (TimeoutException e) {
      throw new AssertionError("the rules were not read within 10 s", e);
    }
  }

  /** A batch of keys on one owner (see {@link #batch}) and the limiter that sends it. */
  private record Batch(GridRateLimiter limiter, List<String> subjects, String poisoned) {

    /**
     * Sends the batch with the poisoned key (see {@link #sendFailing(Function)}); its answer must
     * reach the caller on the callback executor ({@link #offHazelcastThreads}).
     */
    CompletableFuture<List<Decision>> sendFailing() {
      return sendFailing(BatchFailureTest::offHazelcastThreads);
    }

    /**
     * Sends the batch with the poisoned key and lets {@code follow} attach to its answer before the
     * poisoned key may fail: the owner's interceptor waits at the {@link #gate} until then. So the
     * failure always comes after everyone waits for it, on the thread that completes the key's
     * operation (Hazelcast's), and never finds the answer's future already done on the sending or
     * test thread, where a callback would run on that thread whatever the hand-off does.
     */
    <T> CompletableFuture<T> sendFailing(
        Function<CompletableFuture<List<Decision>>, CompletableFuture<T>> follow) {
      CountDownLatch release = new CountDownLatch(1);
      gate = release;
      try {
        CompletableFuture<List<Decision>> answer = limiter.tryAcquireAllAsync(checks());
        CompletableFuture<T> followed = follow.apply(answer);
        if (answer.isDone()) {
          throw new IllegalStateException("answered before the poisoned key could fail");
        }
        return followed;
      } finally {
        release.countDown();
      }
    }

    /** The poisoned key in the middle of the normal ones. */
    List<Check> checks() {
      List<Check> checks = normal();
      checks.add(NORMAL_KEYS / 2, Check.of(POISON, poisoned));
      return checks;
    }

    List<Check> normal() {
      List<Check> checks = new ArrayList<>();
      for (String subject : subjects) {
        checks.add(Check.of(RULE, subject));
      }
      return checks;
    }
  }

  /**
   * A subject starting with {@code prefix} whose key under {@code rule} lives on member {@code
   * owner}.
   */
  private String subjectOwnedBy(String rule, int owner, String prefix) {
    for (int i = 0; i < 100_000; i++) {
      String subject = prefix + "-" + i;
      if (ownerIndex(StateKey.of(rule, subject)) == owner) {
        return subject;
      }
    }
    throw new IllegalStateException("no key of member " + owner + " under " + prefix);
  }

  private int ownerIndex(String stateKey) {
    Partition partition = cluster.members.get(0).getPartitionService().getPartition(stateKey);
    UUID owner = partition.getOwner().getUuid();
    for (int i = 0; i < cluster.members.size(); i++) {
      if (cluster.members.get(i).getCluster().getLocalMember().getUuid().equals(owner)) {
        return i;
      }
    }
    throw new IllegalStateException("no member owns " + stateKey);
  }

  /**
   * Waits (at most 10 s) until the client's partition table names the members' owners: a client
   * that does not know a key's owner yet sends its batch with {@code submitToKeys}, not the batch
   * message; one that still names an owner from before the last migration (its table follows the
   * members' by an event) sends the key on that member's lane, and a batch the test means as one
   * goes out as two.
   */
  private void awaitClientKnowsOwners(List<String> keys) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (String key : keys) {
      while (!clientAgreesOnOwner(key)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the client did not learn the owner of " + key);
        }
        Thread.sleep(10);
      }
    }
  }

  private boolean clientAgreesOnOwner(String key) {
    UUID seen = ownerOf(client, key);
    return seen != null && seen.equals(ownerOf(cluster.members.get(0), key));
  }

  private static @Nullable UUID ownerOf(HazelcastInstance instance, String key) {
    Member owner = instance.getPartitionService().getPartition(key).getOwner();
    return owner == null ? null : owner.getUuid();
  }

  /**
   * A member made to answer Sluice's batch message as a member without limiter-core's message task
   * does ("unrecognized client message", nothing run), until closed: its client engine's factory
   * for the message is taken out and put back. Hazelcast internals, for this test only.
   */
  private static final class OlderMember {
    private final Int2ObjectHashMap<MessageTaskFactory> factories;
    private final MessageTaskFactory removed;

    private OlderMember(
        Int2ObjectHashMap<MessageTaskFactory> factories, MessageTaskFactory removed) {
      this.factories = factories;
      this.removed = removed;
    }

    static OlderMember of(HazelcastInstance member) throws ReflectiveOperationException {
      ClientEngine engine = ((HazelcastInstanceProxy) member).getOriginal().node.getClientEngine();
      Object composite = field(ClientEngineImpl.class, "messageTaskFactory").get(engine);
      @SuppressWarnings("unchecked")
      Int2ObjectHashMap<MessageTaskFactory> factories =
          (Int2ObjectHashMap<MessageTaskFactory>)
              field(CompositeMessageTaskFactory.class, "factories").get(composite);
      MessageTaskFactory removed = factories.remove(DecideBatchCodec.REQUEST_MESSAGE_TYPE);
      if (removed == null) {
        throw new IllegalStateException("the member does not know the batch message");
      }
      return new OlderMember(factories, removed);
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
      Field field = owner.getDeclaredField(name);
      field.setAccessible(true);
      return field;
    }

    void close() {
      factories.put(DecideBatchCodec.REQUEST_MESSAGE_TYPE, removed);
    }
  }

  /**
   * Refuses to store any state with one fingerprint (after the {@link #gate}), and holds the states
   * with another at the {@link #slowGate} before storing them. Hazelcast ships an interceptor to
   * every member when it is added: as a {@link DataSerializable} (class name and fields), not by
   * Java serialization, though {@link MapInterceptor} extends {@link java.io.Serializable}.
   */
  public static final class InterceptStates implements MapInterceptor, DataSerializable {
    private static final long serialVersionUID = 1L;
    private int fingerprint;
    private int slowFingerprint;

    /** For deserialization. */
    public InterceptStates() {}

    InterceptStates(int fingerprint, int slowFingerprint) {
      this.fingerprint = fingerprint;
      this.slowFingerprint = slowFingerprint;
    }

    @Override
    public Object interceptPut(Object oldValue, Object newValue) {
      if (!(newValue instanceof StateValue state)) {
        return null;
      }
      if (state.fingerprint() == slowFingerprint) {
        waitAt(slowGate);
      } else if (state.fingerprint() == fingerprint) {
        waitAt(gate);
        refusals.incrementAndGet();
        throw new IllegalStateException(REFUSAL + " rule");
      }
      return null;
    }

    /** Waits until {@code latch} opens, at most 10 s, so that a forgotten gate cannot hang. */
    private static void waitAt(CountDownLatch latch) {
      try {
        latch.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public Object interceptGet(Object value) {
      return null;
    }

    @Override
    public void afterGet(Object value) {}

    @Override
    public void afterPut(Object value) {}

    @Override
    public Object interceptRemove(Object removedValue) {
      return null;
    }

    @Override
    public void afterRemove(Object oldValue) {}

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
      out.writeInt(fingerprint);
      out.writeInt(slowFingerprint);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
      fingerprint = in.readInt();
      slowFingerprint = in.readInt();
    }
  }
}
