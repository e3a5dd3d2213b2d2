package dev.sluice.bench.load;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.bench.Usage;
import java.util.concurrent.CountDownLatch;

/**
 * The Bucket4j peer's server: one Hazelcast member configured like Sluice's grid node (see {@link
 * BenchMembers#bucket4jMember}), in its own JVM, until the harness stops it.
 *
 * <p>Run by the harness ({@link Servers}) as
 *
 * <pre>
 * java &lt;server flags&gt; -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.load.Bucket4jServer &lt;cluster&gt; &lt;port&gt; &lt;backupCount&gt; &lt;inMemoryFormat&gt;
 * </pre>
 */
public final class Bucket4jServer {
  static final String USAGE =
      """
      java <server flags> -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.load.Bucket4jServer <cluster> <port> <backupCount> <inMemoryFormat>
      """;

  private Bucket4jServer() {}

  public static void main(String[] args) throws InterruptedException {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    if (args.length != 4) {
      System.err.println("usage: Bucket4jServer <cluster> <port> <backupCount> <inMemoryFormat>");
      System.exit(2);
    }
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(
            BenchMembers.bucket4jMember(
                args[0],
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                InMemoryFormat.valueOf(args[3])));
    member.getMap(BenchMembers.BUCKET4J_MAP); // create the map before the first client call
    System.out.println("READY " + member.getCluster().getLocalMember().getAddress());
    new CountDownLatch(1).await(); // until SIGTERM; Hazelcast's shutdown hook leaves the cluster
  }
}
