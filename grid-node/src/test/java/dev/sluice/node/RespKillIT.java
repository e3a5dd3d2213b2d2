package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Three node processes under load on their Redis ports; one is killed with {@code kill -9} midway.
 * The load moves to the others, and no key admits more than its GCRA bound over the whole run (the
 * killed member's counters live on in their backups), judged on the real clock by {@code
 * AdmissionBounds}.
 */
@Tag("multiprocess")
class RespKillIT {
  private static final Duration STARTUP = Duration.ofSeconds(120);

  private final List<NodeProcess> nodes = new CopyOnWriteArrayList<>();
  private final List<Integer> restPorts = new CopyOnWriteArrayList<>();

  @AfterEach
  void stopAll() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void killNineOfOneOfThree_underRespLoad_noKeyOverItsBound() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "resp-kill-" + System.nanoTime()).toAbsolutePath());
    Path rules = Files.writeString(work.resolve("rules.yaml"), "rules: []\n");
    String cluster = TestNodes.uniqueClusterName();
    List<Integer> memberPorts =
        List.of(TestNodes.freePort(), TestNodes.freePort(), TestNodes.freePort());
    for (int i = 0; i < 3; i++) {
      Map<String, String> env =
          TestNodes.environment(cluster, memberPorts.get(i), memberPorts, rules);
      int restPort = TestNodes.freePort();
      env.put("SLUICE_REST_PORT", Integer.toString(restPort));
      env.put("SLUICE_RESP_PORT", Integer.toString(TestNodes.freePort()));
      restPorts.add(restPort);
      nodes.add(
          new NodeProcess(NodeProcess.jar(), env, work.resolve("node-" + i + ".log"), work)
              .start());
    }
    TestNodes.awaitCluster(nodes, restPorts, List.of(0, 1, 2), 3, STARTUP);

    List<IntSupplier> ports = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int index = i;
      ports.add(() -> nodes.get(index).respPort());
    }
    // Fast keys (burst 4, 20 a second) keep every node deciding; slow keys (burst 9, one a
    // minute) show a lost state: their bucket cannot refill while the member's death is noticed,
    // so a key that started afresh would admit its burst of 10 a second time.
    try (RespLoad fast = new RespLoad(ports, keys("fast", 12), 4, 20, 1);
        RespLoad slow = new RespLoad(ports, keys("slow", 12), 9, 1, 60)) {
      fast.start(3, 1, Duration.ofSeconds(8));
      fast.start(1, 8, Duration.ofSeconds(8));
      slow.start(2, 1, Duration.ofSeconds(8));
      Thread.sleep(2_500); // load runs on the real clock; this only places the kill midway
      nodes.get(2).kill();
      fast.await();
      slow.await();
      for (RespLoad load : List.of(fast, slow)) {
        System.out.printf(
            "%d calls: %d admitted, %d denied, %d failed calls%n",
            load.calls(), load.admitted(), load.denied(), load.failures());
      }

      assertThat(fast.failures() + slow.failures())
          .as("the killed node's connections failed")
          .isPositive();
      assertThat(slow.admitted()).as("every slow key's burst").isGreaterThanOrEqualTo(12 * 10L);
      assertThat(fast.violations()).isEmpty();
      assertThat(slow.violations()).isEmpty();
    }
  }

  private static List<String> keys(String prefix, int count) {
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      keys.add(prefix + "-" + k);
    }
    return keys;
  }
}
