package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.GridNames;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An embedded member's batches, one operation per key ({@link MemberBatchDecider} behind {@link
 * GridRateLimiter}'s batchers), on three real members.
 */
class MemberBatchDeciderTest {
  private static final int KEYS = 60;
  private static GridTestCluster cluster;

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = GridTestCluster.start(3);
    cluster.limiter(0).rules().put(new Rule("each", Policy.of(2, Duration.ofMinutes(1))));
    cluster.awaitSafe(); // so that the backup count below counts every partition
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void decideEach_keysOfEveryOwner_answersInOrderWithBackupsStored() throws Exception {
    HazelcastInstance member = cluster.members.get(0);
    member.getMap(GridNames.STATE_MAP).clear(); // so the backup count is this test's alone
    KeyCommand[] commands = new KeyCommand[KEYS];
    for (int i = 0; i < KEYS; i++) {
      // Key i asks for 1 + i % 2 permits, so an answer given to the wrong key shows.
      commands[i] = DecideBatchMessageTest.command("each", "k-" + i, 1 + i % 2);
    }

    Object[] outcomes =
        MemberBatchDecider.of(member)
            .decideEach(
                GridNames.STATE_MAP, new DecideProcessor(commands, new int[KEYS]), null, false)
            .get(30, TimeUnit.SECONDS);

    for (int i = 0; i < KEYS; i++) {
      assertThat(((KeyOutcome) outcomes[i]).decision(0).remaining())
          .as("k-" + i)
          .isEqualTo(i % 2 == 0 ? 1 : 0);
    }
    assertThat(cluster.backupEntries()).isEqualTo(KEYS);
  }

  @Test
  void of_memberOnly() {
    assertThat(MemberBatchDecider.of(cluster.members.get(1))).isNotNull();
    assertThat(MemberBatchDecider.of(cluster.newClient())).isNull();
  }

  @Test
  void batchAnswer_callbackMayCallTheGridSynchronously() throws Exception {
    // The last key of a batch finishes on a partition thread, where a synchronous grid call would
    // throw; the answer must reach the caller's callback elsewhere.
    GridRateLimiter limiter = cluster.limiter(2);
    Decision afterwards = GridTestCluster.decideAgainFromBatchCallback(limiter, "each");

    assertThat(afterwards.allowed()).isTrue();
    assertThat(afterwards.remaining()).isZero();
  }
}
