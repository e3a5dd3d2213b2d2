package dev.sluice.node;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.contract.RateLimiterContract;
import dev.sluice.rest.HttpRateLimiter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract suite against what a client-mode node serves: a member node and a node in client
 * mode in this JVM on loopback (a manual clock for both: the member decides with it, the client's
 * local denials run out on it), called over the client-mode node's REST port. Every answer crosses
 * the node's SDK client (denied cache, coalescing, failure policy) and the network to the member.
 */
class ClientModeNodeContractTest extends RateLimiterContract {
  private static final ManualTimeSource CLOCK =
      ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));

  @TempDir static Path dir;
  private static SluiceNode member;
  private static SluiceNode client;
  private static HttpRateLimiter overHttp;

  @BeforeAll
  static void start() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, "rules: []\n");
    int memberPort = TestNodes.freePort();
    String cluster = TestNodes.uniqueClusterName();
    Map<String, String> memberEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    memberEnv.put("SLUICE_ADMIN_TOKEN", "contract-token");
    Map<String, String> clientEnv =
        TestNodes.environment(cluster, memberPort, List.of(memberPort), rules);
    clientEnv.put("SLUICE_MODE", "client");
    clientEnv.put("SLUICE_CALL_TIMEOUT", "5s");
    clientEnv.put("SLUICE_ADMIN_TOKEN", "contract-token");
    member = SluiceNode.start(NodeSettings.load(null, memberEnv), CLOCK);
    client = SluiceNode.start(NodeSettings.load(null, clientEnv), CLOCK);
    overHttp =
        new HttpRateLimiter(
            URI.create("http://127.0.0.1:" + client.restPort() + "/"), "contract-token");
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (member != null) {
      member.close();
    }
  }

  @Override
  protected RateLimiter limiter() {
    return overHttp;
  }

  @Override
  protected ManualTimeSource clock() {
    return CLOCK;
  }

  /** The REST API answers inline checks under their own state: it carries no state name. */
  @Override
  protected boolean carriesStateNames() {
    return false;
  }
}
