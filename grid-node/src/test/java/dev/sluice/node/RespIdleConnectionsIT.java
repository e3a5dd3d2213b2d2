package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.resp.RespWire;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 10,000 idle connections on a node process's Redis port: they cost the node little, none is timed
 * out (an idle connection between commands is no half-sent frame), some of them answer when asked,
 * and a new connection is served as usual. A process of its own, so that the 10,000 sockets of each
 * side do not share one file descriptor limit.
 */
@Tag("multiprocess")
class RespIdleConnectionsIT {
  private static final int IDLE = 10_000;

  private NodeProcess node;
  private final List<Socket> idle = new ArrayList<>();

  @AfterEach
  void stop() {
    idle.forEach(
        socket -> {
          try {
            socket.close();
          } catch (IOException e) {
            // closing
          }
        });
    if (node != null) {
      node.close();
    }
  }

  @Test
  void tenThousandIdleConnections_areHeld_andOthersAreServed() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "resp-idle-" + System.nanoTime()).toAbsolutePath());
    Path rules = Files.writeString(work.resolve("rules.yaml"), "rules: []\n");
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules);
    env.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_RESP_PORT", Integer.toString(TestNodes.freePort()));
    node =
        TestNodes.awaitReady(
            new NodeProcess(NodeProcess.jar(), env, work.resolve("node.log"), work).start(),
            Duration.ofSeconds(120));
    int port = node.respPort();

    for (int i = 0; i < IDLE; i++) {
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      idle.add(socket);
    }

    try (RespWire fresh = new RespWire(port)) {
      assertThat(fresh.call("CL.THROTTLE", "idle-test", "0", "1", "60"))
          .isEqualTo(List.of(0L, 1L, 0L, -1L, 60L));
      String info = (String) fresh.call("INFO", "clients");
      assertThat(info).contains("connected_clients:" + (IDLE + 1));
    }
    Thread.sleep(12_000); // longer than a half-sent frame may last: idle is not half-sent
    for (int i = 0; i < IDLE; i += IDLE / 10) {
      Socket socket = idle.get(i);
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write("PING\r\n".getBytes());
      byte[] pong = socket.getInputStream().readNBytes(7);
      assertThat(new String(pong)).as("idle connection %d", i).isEqualTo("+PONG\r\n");
    }
    assertThat(node.isAlive()).isTrue();
  }
}
