package dev.sluice.node;

import dev.sluice.core.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** In-process grid nodes with the Redis port on, on free ports, for the Redis protocol tests. */
final class RespNodes {
  private RespNodes() {}

  /**
   * {@code size} members of one cluster, each serving the Redis port, deciding on {@code clock}.
   *
   * @param extra settings every node also gets (an admin token, say)
   */
  static List<SluiceNode> start(int size, TimeSource clock, Path dir, Map<String, String> extra)
      throws Exception {
    Path rules = dir.resolve("rules.yaml");
    if (!Files.exists(rules)) {
      Files.writeString(
          rules,
          """
          rules:
            - {name: login, limit: 5, window: 1m}
            - {name: db, algorithm: concurrency, limit: 2, permitTtl: 1m}
            - {name: tokens, algorithm: token_bucket, limit: 100, window: 1m}
            - {name: reported, limit: 10, window: 1m, release: open}
          """);
    }
    String cluster = TestNodes.uniqueClusterName();
    List<Integer> memberPorts = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      memberPorts.add(TestNodes.freePort());
    }
    List<SluiceNode> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        Map<String, String> env =
            TestNodes.environment(cluster, memberPorts.get(i), memberPorts, rules);
        env.put("SLUICE_RESP_PORT", Integer.toString(TestNodes.freePort()));
        env.putAll(extra);
        nodes.add(SluiceNode.start(NodeSettings.load(null, env), clock));
      }
    } catch (RuntimeException e) {
      nodes.forEach(SluiceNode::close);
      throw e;
    }
    return nodes;
  }
}
