package dev.sluice.core.grid.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.StateValue;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client's timed single-key invocation, against one real member. */
class ClientKeyInvokerTest {
  private static GridTestCluster cluster;
  private static HazelcastInstance member;
  private static HazelcastInstance client;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(1);
    member = cluster.members.get(0);
    client = cluster.newClient();
    cluster.limiter(0).rules().put(new Rule("invoker", Policy.of(2, Duration.ofMinutes(1))));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void of_clientOnly() {
    assertThat(ClientKeyInvoker.of(client, GridNames.STATE_MAP)).isNotNull();
    assertThat(ClientKeyInvoker.of(member, GridNames.STATE_MAP)).isNull();
  }

  @Test
  void submitToKey_decidesOnTheOwnerAndStoresTheState() throws Exception {
    ClientKeyInvoker invoker = ClientKeyInvoker.of(client, GridNames.STATE_MAP);
    String stateKey = StateKey.of("invoker", "k");
    KeyOutcome outcome =
        invoker.submitToKey(stateKey, acquire(stateKey, 1, 1, 1), 30, TimeUnit.SECONDS);

    assertThat(outcome.decision(0).remaining()).isEqualTo(1);
    assertThat(outcome.decision(1).remaining()).isZero();
    assertThat(outcome.decision(2).allowed()).isFalse();
    IMap<String, StateValue> states = member.getMap(GridNames.STATE_MAP);
    assertThat(states.containsKey(stateKey)).isTrue();
  }

  @Test
  void submitToKey_partitionBusy_timesOut() throws Exception {
    ClientKeyInvoker invoker = ClientKeyInvoker.of(client, GridNames.STATE_MAP);
    String stateKey = StateKey.of("invoker", "held");
    PartitionHold hold = PartitionHold.on(member, stateKey);
    try {
      long start = System.nanoTime();
      assertThatThrownBy(
              () -> invoker.submitToKey(stateKey, acquire(stateKey, 1), 200, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      // At least the 200 ms timeout (the call did wait), and not the partition's hold (until
      // released): 10 s, 50 times the timeout, is slack for a loaded machine.
      assertThat((System.nanoTime() - start) / 1_000_000).isBetween(200L, 10_000L);
    } finally {
      hold.close();
    }
  }

  private static DecideProcessor acquire(String stateKey, long... permits) {
    return new DecideProcessor(
        DecideBatchMessageTest.command(
            "invoker", stateKey.substring(stateKey.indexOf('|') + 1), permits));
  }
}
