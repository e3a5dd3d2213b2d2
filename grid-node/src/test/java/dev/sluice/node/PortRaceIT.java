package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The process ITs pick free ports and the node binds them a moment later; on a shared machine
 * another process can take one in between. This loses that race on purpose, by holding the member
 * port open, and shows that {@link TestNodes#awaitReady} starts the node again on fresh ports
 * instead of failing the test.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class PortRaceIT {

  @Test
  void memberPortTakenBeforeStart_nodeStartsAgainOnFreshPorts() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "port-race-" + System.nanoTime()).toAbsolutePath());
    Path rules =
        Files.writeString(
            work.resolve("rules.yaml"), "rules:\n  - name: p\n    limit: 5\n    window: 1m\n");
    try (ServerSocket thief = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int takenPort = thief.getLocalPort();
      Map<String, String> env =
          TestNodes.environment(
              TestNodes.uniqueClusterName(), takenPort, List.of(takenPort), rules);
      env.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
      NodeProcess first =
          new NodeProcess(NodeProcess.jar(), env, work.resolve("node.log"), work).start();
      NodeProcess running = first;
      try {
        running = TestNodes.awaitReady(first, Duration.ofSeconds(120));

        assertThat(first.lostPortRace()).as("first start lost the race:\n%s", first.log()).isTrue();
        assertThat(running).isNotSameAs(first);
        assertThat(running.memberPort()).isNotEqualTo(takenPort);
        assertThat(running.log()).contains("[127.0.0.1]:" + running.memberPort());
        assertThat(
                TestNodes.post(running.restPort(), "/v1/check", "{\"rule\": \"p\", \"key\": \"k\"}")
                    .status())
            .as("the node started again answers")
            .isEqualTo(200);
      } finally {
        running.close();
        first.close();
      }
    }
  }
}
