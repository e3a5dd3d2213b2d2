package dev.sluice.node;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One grid node as a real process ({@code java -jar sluice-node.jar}, {@link NodeProcess}) on
 * loopback, for tests in other modules, which get it from this module's test-jar: a cluster of its
 * own (a unique name), free REST and member ports, the Envoy and Redis ports off, started and
 * awaited ready with the port-race retry of this module's tests ({@link TestNodes#awaitReady}).
 * {@link #kill()} is {@code kill -9}; {@link #restart} starts it again on the same ports, so that
 * clients find it where it was.
 *
 * <pre>{@code
 * try (LoneNode node = LoneNode.start(logs, Duration.ofMinutes(2))) {
 *   // a Hazelcast client of node.clusterName() at node.memberAddress()
 * }
 * }</pre>
 *
 * The jar is the system property {@code sluice.node.jar} (this module's {@code
 * target/sluice-node.jar} by default), built by this module's {@code package} phase.
 */
public final class LoneNode implements AutoCloseable {
  private final String clusterName;
  private final Path logDirectory;
  private NodeProcess process;
  private int starts = 1;

  private LoneNode(String clusterName, Path logDirectory, NodeProcess process) {
    this.clusterName = clusterName;
    this.logDirectory = logDirectory;
    this.process = process;
  }

  /** Starts a node, logging into {@code logDirectory}, and waits until it is ready. */
  public static LoneNode start(Path logDirectory, Duration timeout) throws InterruptedException {
    String clusterName = TestNodes.uniqueClusterName();
    Map<String, String> environment = new HashMap<>();
    environment.put("SLUICE_CLUSTER_NAME", clusterName);
    environment.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    environment.put("SLUICE_MEMBER_PORT", Integer.toString(TestNodes.freePort()));
    NodeProcess process =
        new NodeProcess(
                NodeProcess.jar(), environment, logDirectory.resolve("node.log"), logDirectory)
            .start();
    return new LoneNode(clusterName, logDirectory, TestNodes.awaitReady(process, timeout));
  }

  /** The node's cluster name, for a client to join. */
  public String clusterName() {
    return clusterName;
  }

  /** The node's member address, {@code 127.0.0.1:port}, for a Hazelcast client. */
  public String memberAddress() {
    return "127.0.0.1:" + process.memberPort();
  }

  /** The node's REST port. */
  public int restPort() {
    return process.restPort();
  }

  /** {@code kill -9}: the member vanishes without a word to its clients. */
  public void kill() throws InterruptedException {
    process.kill();
  }

  /** Starts the node again on the ports it had, and waits until it is ready. */
  public void restart(Duration timeout) throws InterruptedException {
    starts++;
    process =
        TestNodes.awaitReady(
            process.restarted(logDirectory.resolve("node.log.start-" + starts)), timeout);
  }

  /** The node's log so far, for a failure message. */
  public String log() {
    return process.log();
  }

  /** SIGTERM, then {@code kill -9} if it has not stopped within ten seconds. */
  @Override
  public void close() {
    process.close();
  }
}
