package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.backend.DeadlineExceededException;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.grid.transport.PartitionHold;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.grid.wire.StateValue;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Timelines on a two-member grid with a manual clock shared by the members. */
class GridRateLimiterTest {
  private static GridTestCluster cluster;
  private static GridRateLimiter batched;
  private static GridRateLimiter direct;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(2);
    batched = cluster.limiter(0);
    direct =
        cluster.limiter(
            cluster.members.get(1), GridRateLimiter.Options.defaults().withBatching(false));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void tryAcquire_slidingWindowFivePerTenSeconds_followsTheWorkedExample() {
    batched.rules().put(new Rule("five-per-10s", Policy.of(5, Duration.ofSeconds(10))));
    long windowStart = (cluster.clock.nowNanos() / 10_000_000_000L + 1) * 10_000_000_000L;
    cluster.clock.set(windowStart);
    // t=0s..8s: five allowed, the sixth denied.
    for (int i = 0; i < 5; i++) {
      assertThat(batched.tryAcquire("five-per-10s", "alice").allowed()).isTrue();
      cluster.clock.advance(Duration.ofSeconds(2));
    }
    cluster.clock.set(windowStart + 8_000_000_000L);
    assertThat(direct.tryAcquire("five-per-10s", "alice").allowed()).isFalse();
    // t=12s: weight 0.8, floor(5 * 0.8) + 0 = 4, allowed.
    cluster.clock.set(windowStart + 12_000_000_000L);
    Decision atTwelve = direct.tryAcquire("five-per-10s", "alice");
    assertThat(atTwelve.allowed()).isTrue();
    assertThat(atTwelve.remaining()).isZero();
    assertThat(batched.tryAcquire("five-per-10s", "alice").allowed()).isFalse();
  }

  @Test
  void tryAcquireAll_sameKeyTwice_decidesInOrder() {
    batched.rules().put(new Rule("two", Policy.of(2, Duration.ofMinutes(1))));
    List<Decision> decisions =
        batched.tryAcquireAll(
            List.of(
                Check.of("two", "k"),
                Check.of("two", "other"),
                Check.of("two", "k"),
                Check.of("two", "k")));
    assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, true, false);
    assertThat(decisions.get(0).remaining()).isEqualTo(1);
    assertThat(decisions.get(2).remaining()).isZero();
  }

  @Test
  void tryAcquire_unknownRule_throwsUnknownRuleOnMemberAndDirectPath() {
    assertThatThrownBy(() -> batched.tryAcquire("no-such-rule", "k"))
        .isInstanceOf(UnknownRuleException.class);
    assertThatThrownBy(() -> direct.tryAcquire("no-such-rule", "k"))
        .isInstanceOf(UnknownRuleException.class);
  }

  @Test
  void tryAcquire_badInput_namesTheFieldAndCountsNothing() {
    batched.rules().put(new Rule("bad-input", Policy.of(3, Duration.ofMinutes(1))));
    assertThatThrownBy(() -> batched.tryAcquire("bad input", "k"))
        .isInstanceOf(InvalidPolicyException.class)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo("rule");
    assertThatThrownBy(() -> batched.tryAcquire("bad-input", ""))
        .isInstanceOf(InvalidPolicyException.class)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo("key");
    assertThatThrownBy(() -> batched.tryAcquire("bad-input", "k", -1))
        .isInstanceOf(InvalidPolicyException.class)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo("cost");
    assertThatThrownBy(() -> batched.tryAcquire("bad-input", "k", 4))
        .isInstanceOf(InvalidPolicyException.class)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo("cost");
    assertThat(batched.peek("bad-input", "k").remaining()).isEqualTo(3);
    IMap<String, StateValue> states = cluster.members.get(0).getMap(GridNames.STATE_MAP);
    assertThat(states.containsKey("bad-input|k")).isFalse();
  }

  @Test
  void tryAcquire_inlinePolicy_decidesWithoutARule() {
    Policy three = Policy.of(3, Duration.ofMinutes(1));
    for (int i = 0; i < 3; i++) {
      assertThat(direct.tryAcquire(three, "inline-k", 1).allowed()).isTrue();
    }
    assertThat(batched.tryAcquire(three, "inline-k", 1).allowed()).isFalse();
  }

  @Test
  void peekAndReset_peekConsumesNothing_resetRestoresCapacity() {
    batched.rules().put(new Rule("peeked", Policy.of(2, Duration.ofMinutes(1))));
    batched.tryAcquire("peeked", "k");
    assertThat(direct.peek("peeked", "k").remaining()).isEqualTo(1);
    assertThat(direct.peek("peeked", "k").remaining()).isEqualTo(1);
    direct.reset("peeked", "k");
    assertThat(batched.peek("peeked", "k").remaining()).isEqualTo(2);
  }

  @Test
  void ruleChange_limitKeepsCounters_windowCarriesThemOver() {
    batched.rules().put(new Rule("changing", Policy.of(2, Duration.ofMinutes(1))));
    batched.tryAcquire("changing", "k");
    batched.tryAcquire("changing", "k");
    assertThat(direct.tryAcquire("changing", "k").allowed()).isFalse();
    // Raising the limit keeps the two counted permits: one more fits under 3.
    direct.rules().put(new Rule("changing", Policy.of(3, Duration.ofMinutes(1))));
    assertThat(batched.tryAcquire("changing", "k").remaining()).isZero();
    assertThat(batched.tryAcquire("changing", "k").allowed()).isFalse();
    // A new window carries the three counted permits over, on whichever member decides next.
    direct.rules().put(new Rule("changing", Policy.of(3, Duration.ofMinutes(2))));
    assertThat(batched.tryAcquire("changing", "k").allowed()).isFalse();
    RuleRecord record = ((GridRuleStore) batched.rules()).record("changing").orElseThrow();
    assertThat(record.version()).isEqualTo(3);
    assertThat(record.former()).containsExactly(Policy.of(3, Duration.ofMinutes(1)));
  }

  @Test
  void shadowRule_wouldDeny_answersAllowedAndFlagged() {
    batched
        .rules()
        .put(
            new Rule(
                "shadowed",
                Policy.builder().limit(1).window(Duration.ofMinutes(1)).shadow(true).build()));
    assertThat(batched.tryAcquire("shadowed", "k").shadowDenied()).isFalse();
    Decision second = batched.tryAcquire("shadowed", "k");
    assertThat(second.allowed()).isTrue();
    assertThat(second.shadowDenied()).isTrue();
  }

  @Test
  void rules_removeThenAddBack_versionKeepsGrowing() {
    batched.rules().put(new Rule("transient", Policy.of(1, Duration.ofMinutes(1))));
    assertThat(batched.rules().remove("transient")).isTrue();
    assertThat(batched.rules().remove("transient")).isFalse();
    assertThatThrownBy(() -> direct.tryAcquire("transient", "k"))
        .isInstanceOf(UnknownRuleException.class);
    batched.rules().put(new Rule("transient", Policy.of(1, Duration.ofMinutes(1))));
    assertThat(direct.tryAcquire("transient", "k").allowed()).isTrue();
    assertThat(((GridRuleStore) batched.rules()).record("transient").orElseThrow().version())
        .isEqualTo(3);
    assertThat(batched.rules().all()).extracting(Rule::name).contains("transient");
  }

  /**
   * On a member, {@code find} reads the local rules copy: a put on one member is seen by the other
   * at once (the put waits for every copy), and no lookup reaches the rules map, whose own
   * statistics count every get.
   */
  @Test
  void rules_findOnAMember_readsTheLocalCopy_seesPutsAndRemovesAtOnce() {
    Rule rule = new Rule("local-find", Policy.of(3, Duration.ofMinutes(1)));
    batched.rules().put(rule);
    long gets = rulesMapGets();
    assertThat(direct.rules().find("local-find")).contains(rule);
    assertThat(batched.rules().find("local-find")).contains(rule);
    assertThat(batched.rules().find("never-put")).isEmpty();
    assertThat(rulesMapGets()).isEqualTo(gets);

    Rule changed = new Rule("local-find", Policy.of(7, Duration.ofMinutes(1)));
    direct.rules().put(changed);
    assertThat(batched.rules().find("local-find")).contains(changed);
    assertThat(batched.rules().remove("local-find")).isTrue();
    gets = rulesMapGets();
    assertThat(direct.rules().find("local-find")).isEmpty();
    assertThat(batched.rules().find("local-find")).isEmpty();
    assertThat(rulesMapGets()).isEqualTo(gets);
  }

  private static long rulesMapGets() {
    return cluster.members.stream()
        .mapToLong(m -> m.getMap(GridNames.RULES_MAP).getLocalMapStats().getGetOperationCount())
        .sum();
  }

  /**
   * Answers complete on Hazelcast's default async executor (or on the caller's own thread, when a
   * stage is attached after completion: CompletableFuture's rule), never on a Hazelcast partition
   * or network thread, where user callbacks could stall the grid.
   */
  @Test
  void tryAcquireAsync_completesOffHazelcastsOwnThreads() throws Exception {
    batched.rules().put(new Rule("async", Policy.of(1_000, Duration.ofMinutes(1))));
    for (GridRateLimiter limiter : List.of(batched, direct)) {
      for (int i = 0; i < 100; i++) {
        String thread =
            limiter
                .tryAcquireAsync("async", "k" + i, 1)
                .thenApply(d -> Thread.currentThread().getName())
                .toCompletableFuture()
                .get();
        assertThat(thread).doesNotStartWith("hz.");
      }
    }
  }

  @Test
  void close_laterCallsAreRefused_theInstanceKeepsRunning() {
    GridRateLimiter limiter = cluster.limiter(0);
    limiter.rules().put(new Rule("closing", Policy.of(5, Duration.ofMinutes(1))));
    assertThat(limiter.tryAcquire("closing", "k").allowed()).isTrue();

    limiter.close();

    assertThatThrownBy(() -> limiter.tryAcquire("closing", "k"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> limiter.tryAcquireAsync("closing", "k", 1))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> limiter.peek("closing", "k"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(direct.peek("closing", "k").remaining()).as("the grid still answers").isEqualTo(4);
  }

  @Test
  void tryAcquireAll_overAClient_sameKeyInOneStepOtherKeysBatched() throws Exception {
    direct.rules().put(new Rule("within", Policy.of(2, Duration.ofMinutes(1))));
    GridRateLimiter client =
        cluster.limiter(cluster.newClient(), GridRateLimiter.Options.defaults());

    List<Decision> sameKey =
        client.tryAcquireAll(
            List.of(Check.of("within", "k"), Check.of("within", "k"), Check.of("within", "k")));
    assertThat(sameKey).extracting(Decision::allowed).containsExactly(true, true, false);
    assertThat(sameKey).extracting(Decision::remaining).containsExactly(1L, 0L, 0L);

    List<Decision> mixed =
        client.tryAcquireAll(
            List.of(Check.of("within", "a"), Check.of("within", "b"), Check.of("within", "a")));
    assertThat(mixed).extracting(Decision::remaining).containsExactly(1L, 1L, 0L);

    assertThatThrownBy(
            () ->
                client.tryAcquireAll(
                    List.of(Check.of("within", "c"), Check.of("no-such-rule", "c"))))
        .isInstanceOf(UnknownRuleException.class);
    assertThatThrownBy(() -> client.tryAcquireAll(List.of(Check.of("within", "c", 3))))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThat(direct.peek("within", "c").remaining()).as("nothing counted").isEqualTo(2);
  }

  /**
   * A partition thread held by another operation stands for a slow grid: a command whose deadline
   * is bounded (what the client's call timeout does) gives up at it instead of waiting for the
   * grid's own (two-minute) invocation timeout.
   */
  @Test
  void commandWithADeadline_partitionBusy_givesUpAtTheDeadline() throws Exception {
    direct.rules().put(new Rule("busy", Policy.of(5, Duration.ofMinutes(1))));
    String stateKey = dev.sluice.core.StateKey.of("busy", "held");
    // The hold runs on the key's owner: no migration may move the key meanwhile.
    cluster.awaitSafe();
    HazelcastInstance owner = PartitionHold.ownerOf(cluster.members, stateKey);
    GridRateLimiter limiter = cluster.limiter(owner, GridRateLimiter.Options.defaults());
    PartitionHold hold = PartitionHold.on(owner, stateKey);
    try {
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  limiter
                      .stack()
                      .head()
                      .execute(
                          KeyCommand.of(PolicyRef.rule("busy"), "held", KeyOp.acquire(1)),
                          Deadline.after(Duration.ofMillis(200).toNanos())))
          .isInstanceOf(DeadlineExceededException.class);
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      // At least the 200 ms timeout, and not the hold: 10 s is 50 times the timeout, for a loaded
      // machine.
      assertThat(waitedMillis).isBetween(200L, 10_000L);
    } finally {
      hold.close();
    }
  }
}
