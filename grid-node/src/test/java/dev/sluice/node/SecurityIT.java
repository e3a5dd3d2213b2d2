package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Security properties of a real {@code sluice-node.jar} process: it refuses to start on a
 * non-loopback bind without an admin token, and with the default bind (loopback) neither the
 * Hazelcast member port nor the REST port answers on any other address of this machine. (Java
 * serialization is refused by the member's filter: {@code SerializationTest} in limiter-core. The
 * admin token never appears in the output: {@code FaultsIT}.)
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@Tag("multiprocess") // starts sluice-node.jar processes
class SecurityIT {

  private static Path rules(Path work) throws IOException {
    return Files.writeString(
        work.resolve("rules.yaml"), "rules:\n  - name: s\n    limit: 5\n    window: 1m\n");
  }

  @Test
  void nonLoopbackBindWithoutToken_refusesToStart() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "security-" + System.nanoTime()).toAbsolutePath());
    int memberPort = TestNodes.freePort();
    int restPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules(work));
    env.put("SLUICE_BIND_ADDRESS", "0.0.0.0");
    env.put("SLUICE_REST_PORT", Integer.toString(restPort));
    try (NodeProcess node =
        new NodeProcess(NodeProcess.jar(), env, work.resolve("insecure.log"), work).start()) {
      int exit = node.exitCode();
      System.out.println("insecure start: exit " + exit + ", output:\n" + node.log());
      assertThat(exit).as("exit code").isNotZero();
      assertThat(node.log()).contains("--insecure");
      assertThat(canConnect(InetAddress.getLoopbackAddress(), restPort)).isFalse();
      assertThat(canConnect(InetAddress.getLoopbackAddress(), memberPort)).isFalse();
    }
  }

  @Test
  void loopbackBind_memberAndRestUnreachableOnOtherAddresses() throws Exception {
    Optional<InetAddress> other = nonLoopbackAddress();
    Assumptions.assumeTrue(other.isPresent(), "this machine has no non-loopback IPv4 address");
    Path work =
        Files.createDirectories(
            Path.of("target", "security-" + System.nanoTime()).toAbsolutePath());
    int firstMemberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), firstMemberPort, List.of(firstMemberPort), rules(work));
    env.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    NodeProcess node =
        new NodeProcess(NodeProcess.jar(), env, work.resolve("loopback.log"), work).start();
    try {
      node = TestNodes.awaitReady(node, Duration.ofSeconds(120));
      int memberPort = node.memberPort();
      int restPort = node.restPort();
      InetAddress loopback = InetAddress.getLoopbackAddress();
      System.out.printf(
          "bind check: loopback member %b rest %b; %s member %b rest %b%n",
          canConnect(loopback, memberPort),
          canConnect(loopback, restPort),
          other.get().getHostAddress(),
          canConnect(other.get(), memberPort),
          canConnect(other.get(), restPort));
      assertThat(canConnect(loopback, memberPort)).as("member port on loopback").isTrue();
      assertThat(canConnect(loopback, restPort)).as("REST port on loopback").isTrue();
      assertThat(canConnect(other.get(), memberPort)).as("member port on " + other.get()).isFalse();
      assertThat(canConnect(other.get(), restPort)).as("REST port on " + other.get()).isFalse();
      assertThat(node.log()).contains("[127.0.0.1]:" + memberPort);
    } finally {
      node.close();
    }
  }

  private static boolean canConnect(InetAddress address, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
          return Optional.of(address);
        }
      }
    }
    return Optional.empty();
  }
}
