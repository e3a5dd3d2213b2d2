package dev.sluice.bench.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.instance.impl.HazelcastInstanceImpl;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.recordstore.RecordStore;
import com.hazelcast.spi.impl.NodeEngine;
import dev.sluice.bench.Usage;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;

/**
 * Can the entry processor deciding one key read another entry of the same partition, and what does
 * a read cost? Asked for a budget per partition (docs/decisions/budget-per-partition.md, a design
 * measured and not built): the owner would consult the partition's budgets on every decision. Two
 * ways, each timed inside one entry processor on the partition thread: the member's record store
 * (Hazelcast internals) and {@code IMap.get} (the public API, which Hazelcast runs inline when the
 * caller is that partition's thread). One member on 127.0.0.1, three rounds.
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.grid.AnchorReadProbe
 * </pre>
 *
 * It reads Hazelcast's internals itself and nothing of Sluice's, so it needs no hook into the
 * product.
 */
public final class AnchorReadProbe {
  private static final String MAP = "anchor-probe";
  private static final int READS = 200_000;
  private static final int ROUNDS = 3;

  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.grid.AnchorReadProbe
      """;

  private AnchorReadProbe() {}

  public static void main(String[] args) {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    Config config = new Config().setClusterName("anchor-probe");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.getNetworkConfig().setPort(15901).setPortAutoIncrement(true);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    config.getMapConfig(MAP).setInMemoryFormat(InMemoryFormat.OBJECT);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    try {
      IMap<String, String> map = member.getMap(MAP);
      String key = "key";
      String anchor = samePartition(member, key);
      map.put(key, "state");
      map.put(anchor, "book");
      for (int round = 1; round <= ROUNDS; round++) {
        for (boolean viaMap : new boolean[] {false, true}) {
          System.out.println(
              "round " + round + ": " + map.executeOnKey(key, new Reader(anchor, viaMap)));
        }
      }
    } finally {
      member.shutdown();
    }
  }

  /** A key that Hazelcast puts in the same partition as {@code key}. */
  private static String samePartition(HazelcastInstance member, String key) {
    int partition = member.getPartitionService().getPartition(key).getPartitionId();
    for (int i = 0; ; i++) {
      String candidate = "anchor-" + i;
      if (member.getPartitionService().getPartition(candidate).getPartitionId() == partition) {
        return candidate;
      }
    }
  }

  /** Reads {@code anchor} {@value #READS} times on the partition thread and reports the cost. */
  private static final class Reader
      implements EntryProcessor<String, String, String>, HazelcastInstanceAware, Serializable {
    private static final long serialVersionUID = 1L;
    private final String anchor;
    private final boolean viaMap;
    private transient HazelcastInstance member;

    Reader(String anchor, boolean viaMap) {
      this.anchor = anchor;
      this.viaMap = viaMap;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
      this.member = hazelcastInstance;
    }

    @Override
    public String process(Map.Entry<String, String> entry) {
      NodeEngine nodeEngine =
          (member instanceof HazelcastInstanceProxy proxy
                  ? proxy.getOriginal()
                  : (HazelcastInstanceImpl) member)
              .node.getNodeEngine();
      MapService maps = nodeEngine.getService(MapService.SERVICE_NAME);
      int partition = nodeEngine.getPartitionService().getPartitionId(anchor);
      Data anchorKey = nodeEngine.getSerializationService().toData(anchor);
      IMap<String, String> map = member.getMap(MAP);
      Object value = null;
      long start = System.nanoTime();
      for (int i = 0; i < READS; i++) {
        if (viaMap) {
          value = map.get(anchor);
        } else {
          RecordStore<?> store = maps.getMapServiceContext().getExistingRecordStore(partition, MAP);
          value = store.getRecord(anchorKey).getValue();
        }
      }
      double nanos = (System.nanoTime() - start) / (double) READS;
      return String.format(
          Locale.ROOT,
          "%s: %.0f ns a read, read %s, on %s",
          viaMap ? "IMap.get" : "record store",
          nanos,
          value,
          Thread.currentThread().getName());
    }
  }
}
