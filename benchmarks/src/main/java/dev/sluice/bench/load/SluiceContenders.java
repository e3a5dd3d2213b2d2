package dev.sluice.bench.load;

import com.hazelcast.config.InMemoryFormat;

/** Sluice's contenders. Placeholder until the grid and client pieces land on main. */
final class SluiceContenders {
  private SluiceContenders() {}

  static LoadBench.StateMapSettings stateMapSettings() {
    return new LoadBench.StateMapSettings(1, InMemoryFormat.BINARY, "Hazelcast defaults");
  }

  static Contender embedded(String name, String clusterName, int port) {
    throw new Servers.NotRunException("grid (dev.sluice.core.grid) not landed");
  }

  static Contender client(String name, String clusterName, int memberPort, String rule) {
    throw new Servers.NotRunException("client-sdk not landed");
  }

  static java.util.List<MemoryRow> memory(int keys) {
    throw new Servers.NotRunException("grid (dev.sluice.core.grid) not landed");
  }
}
