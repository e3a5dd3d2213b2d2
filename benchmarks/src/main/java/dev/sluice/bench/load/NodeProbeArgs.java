package dev.sluice.bench.load;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.grid.SluiceHazelcast;
import java.util.List;

/**
 * The arguments of the probes that drive one running grid node through a client: {@code <member
 * host:port> <cluster> <node pid> <mode,mode,...>}. The pid is the node's, whose CPU time the
 * probes read from {@code /proc}.
 */
public record NodeProbeArgs(String member, String cluster, long nodePid, List<String> modes) {

  /** Parses {@code args}, or prints the usage of {@code probe} and exits with status 2. */
  public static NodeProbeArgs parse(String probe, String[] args) {
    if (args.length != 4) {
      System.err.println("usage: " + probe + " <member host:port> <cluster> <node pid> <modes>");
      System.exit(2);
    }
    return new NodeProbeArgs(
        args[0], args[1], Long.parseLong(args[2]), List.of(args[3].split(",")));
  }

  /** A client configured the way Sluice configures its own, connected to {@link #member}. */
  public HazelcastInstance connect() {
    ClientConfig config = new ClientConfig().setClusterName(cluster);
    config.getNetworkConfig().addAddress(member);
    return HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(config));
  }
}
