package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.test.HazelcastTestSupport;
import com.hazelcast.test.SplitBrainTestSupport;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.MostConsumedMergePolicy;
import dev.sluice.core.grid.member.PeekProcessor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A split brain and its heal, on Hazelcast's in-memory network with a firewall between the brains
 * (the same moves as Hazelcast's own {@code SplitBrainTestSupport}), clock frozen.
 *
 * <p>Timeline: three members form one cluster; every key spends 5 permits; the network splits into
 * {m2} and {m0, m1}; each brain admits a seeded random number of permits per key on its own copy;
 * each brain peeks every key; the network heals, m2's brain merges into the larger one through
 * {@link MostConsumedMergePolicy}. After the heal every key must have at most the remaining budget
 * of the more-consumed side: no admission made on either side during the split is forgotten by the
 * side that is kept.
 *
 * <p>The small side is the youngest member, not the master (m0): the larger side keeps its master
 * and needs no election, which on a loaded machine could time out and split m1 from m2 as well
 * (seen once in CI when m0 was cut off: the larger side never re-formed within two minutes).
 */
@ExtendWith(Seeds.class)
class SplitBrainMergeTest {
  private static final int LIMIT = 40;
  private static final int KEYS_PER_RULE = 6;

  private static Config config(GridTestCluster cluster) {
    Config config = cluster.memberConfig();
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "1");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "1");
    return config;
  }

  private record Target(PolicyRef ref, String key) {
    String stateKey() {
      return ref.stateKey(key);
    }
  }

  private static Decision acquire(GridRateLimiter limiter, Target target, long permits) {
    return limiter.tryAcquire(new Check(target.ref(), target.key(), permits));
  }

  private static long remaining(HazelcastInstance member, Target target) {
    KeyOutcome outcome =
        member
            .<String, StateValue>getMap(GridNames.STATE_MAP)
            .executeOnKey(
                target.stateKey(),
                new PeekProcessor(KeyCommand.of(target.ref(), target.key(), KeyOp.peek())));
    return outcome.decision(0).remaining();
  }

  @Test
  void splitThenHeal_bothSidesAdmit_mergedStateAtLeastAsConsumedAsEitherSide() throws Exception {
    Random random = Seeds.random();
    try (GridTestCluster cluster = new GridTestCluster()) {
      HazelcastInstance m0 = cluster.factory.newHazelcastInstance(config(cluster));
      HazelcastInstance m1 = cluster.factory.newHazelcastInstance(config(cluster));
      HazelcastInstance m2 = cluster.factory.newHazelcastInstance(config(cluster));
      cluster.members.addAll(List.of(m0, m1, m2));
      HazelcastTestSupport.assertClusterSizeEventually(3, m0, m1, m2);
      GridRateLimiter onSmallSide = cluster.limiter(2);
      GridRateLimiter onLargeSide = cluster.limiter(0);

      List<Target> targets = new ArrayList<>();
      for (Algorithm algorithm : Algorithm.values()) {
        Policy policy =
            Policy.builder().algorithm(algorithm).limit(LIMIT).window(Duration.ofHours(1)).build();
        String rule = "sb-" + algorithm.wireName().replace('_', '-');
        onLargeSide.rules().put(new Rule(rule, policy));
        for (int k = 0; k < KEYS_PER_RULE; k++) {
          targets.add(new Target(PolicyRef.rule(rule), "user-" + k));
        }
      }
      Policy inline =
          Policy.builder()
              .algorithm(Algorithm.GCRA)
              .limit(LIMIT)
              .window(Duration.ofHours(1))
              .build();
      for (int k = 0; k < KEYS_PER_RULE; k++) {
        targets.add(new Target(PolicyRef.inline(inline), "inline-" + k));
      }
      for (Target target : targets) {
        assertThat(acquire(onSmallSide, target, 5).allowed())
            .as("%s before the split", target)
            .isTrue();
      }

      // Split: {m2} | {m0, m1}.
      for (HazelcastInstance other : List.of(m0, m1)) {
        SplitBrainTestSupport.blockCommunicationBetween(m2, other);
        HazelcastTestSupport.closeConnectionBetween(m2, other);
      }
      HazelcastTestSupport.assertClusterSizeEventually(1, m2);
      HazelcastTestSupport.assertClusterSizeEventually(2, m0, m1);
      HazelcastTestSupport.waitAllForSafeState(m0, m1);

      long admittedSmall = 0;
      long admittedLarge = 0;
      int heavierOnMergingSide = 0;
      long[] remainingSmall = new long[targets.size()];
      long[] remainingLarge = new long[targets.size()];
      for (int i = 0; i < targets.size(); i++) {
        Target target = targets.get(i);
        int onSmall = random.nextInt(LIMIT);
        int onLarge = random.nextInt(LIMIT);
        for (int p = 0; p < onSmall; p++) {
          admittedSmall += acquire(onSmallSide, target, 1).allowed() ? 1 : 0;
        }
        for (int p = 0; p < onLarge; p++) {
          admittedLarge += acquire(onLargeSide, target, 1).allowed() ? 1 : 0;
        }
        remainingSmall[i] = remaining(m2, target);
        remainingLarge[i] = remaining(m0, target);
        if (remainingSmall[i] < remainingLarge[i]) {
          heavierOnMergingSide++;
        }
      }
      // The test can only fail a wrong policy if the merging side is sometimes the heavier one.
      assertThat(heavierOnMergingSide).as("keys more consumed on the merging side").isPositive();

      CountDownLatch merged = new CountDownLatch(1);
      m2.getLifecycleService()
          .addLifecycleListener(
              event -> {
                if (event.getState() == LifecycleEvent.LifecycleState.MERGED) {
                  merged.countDown();
                }
              });
      for (HazelcastInstance other : List.of(m0, m1)) {
        SplitBrainTestSupport.unblockCommunicationBetween(m2, other);
      }
      assertThat(merged.await(60, TimeUnit.SECONDS)).as("m2 merged back").isTrue();
      HazelcastTestSupport.assertClusterSizeEventually(3, m0, m1, m2);
      HazelcastTestSupport.waitAllForSafeState(m0, m1, m2);

      int violations = 0;
      for (int i = 0; i < targets.size(); i++) {
        long after = remaining(m1, targets.get(i));
        long bound = Math.min(remainingSmall[i], remainingLarge[i]);
        if (after > bound) {
          violations++;
          System.out.printf(
              "  %s: remaining after heal %d, sides had %d and %d%n",
              targets.get(i), after, remainingSmall[i], remainingLarge[i]);
        }
      }
      System.out.printf(
          "split brain: %d keys, admitted during split %d (small side) + %d (large side), "
              + "%d keys heavier on the merging side, %d keys lost admissions after heal%n",
          targets.size(), admittedSmall, admittedLarge, heavierOnMergingSide, violations);
      assertThat(violations).as("keys whose heal forgot admissions").isZero();
    }
  }
}
