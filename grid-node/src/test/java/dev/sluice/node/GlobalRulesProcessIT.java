package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A home grid and a region as two node processes, configured as an operator configures them (the
 * rules file and {@code SLUICE_REGION}, {@code SLUICE_HOME_*}): the region answers a global rule
 * from budget home admitted, exactly to the limit; then home is killed with {@code kill -9} and the
 * region answers by each rule's {@code onHomeUnreachable}: {@code local_share} from its share of
 * the limit alone, {@code fail_closed} by denying what it holds no budget for, and the link's
 * metric says home is down.
 */
@Tag("multiprocess")
class GlobalRulesProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final int LIMIT = 20;

  /**
   * Both clusters load the same rules: home counts them, the region reads them to know which rules
   * are global. A day's sliding window, so that a window boundary hardly ever falls among the
   * checks: across one, a sliding window counts the previous window's share as an estimate, which
   * can admit one more than the exact counts asserted below (the checks take seconds, so about one
   * run in 20,000).
   */
  private static final String RULES =
      """
      rules:
        - name: api
          algorithm: sliding_window
          limit: %d
          window: 1d
          scope: global
          onHomeUnreachable: local_share
          localShares: {eu: 0.5}
        - name: strict
          algorithm: sliding_window
          limit: %d
          window: 1d
          scope: global
          onHomeUnreachable: fail_closed
      """
          .formatted(LIMIT, LIMIT);

  private final List<NodeProcess> nodes = new ArrayList<>();

  @AfterEach
  void stopAll() {
    nodes.forEach(NodeProcess::close);
  }

  @Test
  void regionDecidesFromHomesBudget_thenByItsRulesWhenHomeIsKilled() throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "global-rules-" + System.nanoTime()).toAbsolutePath());
    Path rules = Files.writeString(work.resolve("rules.yaml"), RULES);

    String homeCluster = TestNodes.uniqueClusterName();
    int homeMemberPort = TestNodes.freePort();
    Map<String, String> homeEnv =
        TestNodes.environment(homeCluster, homeMemberPort, List.of(homeMemberPort), rules);
    homeEnv.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    NodeProcess home =
        TestNodes.awaitReady(
            new NodeProcess(NodeProcess.jar(), homeEnv, work.resolve("home.log"), work).start(),
            STARTUP);
    nodes.add(home);

    int regionMemberPort = TestNodes.freePort();
    Map<String, String> regionEnv =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), regionMemberPort, List.of(regionMemberPort), rules);
    regionEnv.put("SLUICE_REST_PORT", Integer.toString(TestNodes.freePort()));
    regionEnv.put("SLUICE_REGION", "eu");
    regionEnv.put("SLUICE_HOME_MEMBERS", "127.0.0.1:" + home.memberPort());
    regionEnv.put("SLUICE_HOME_CLUSTER_NAME", homeCluster);
    regionEnv.put("SLUICE_HOME_TIMEOUT", "2s");
    NodeProcess region =
        TestNodes.awaitReady(
            new NodeProcess(NodeProcess.jar(), regionEnv, work.resolve("region.log"), work).start(),
            STARTUP);
    nodes.add(region);
    int port = region.restPort();

    // With home up: the region admits exactly the global limit, from budget home admitted.
    assertThat(admitted(port, "api", "k", LIMIT + 5)).isEqualTo(LIMIT);
    assertThat(linkUp(port)).isEqualTo(1);

    home.kill();
    // The link notices home is gone; until then a check waits for home, then answers by its rule.
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (linkUp(port) != 0 && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertThat(linkUp(port)).as("sluice_region_link_up after kill -9 of home").isZero();

    // local_share: the region decides a new key alone from its share, floor(0.5 × 20) = 10.
    assertThat(admitted(port, "api", "fresh", LIMIT)).isEqualTo(LIMIT / 2);
    // fail_closed: a key the region holds no budget for is denied, and nothing is counted twice.
    assertThat(admitted(port, "strict", "fresh", 3)).isZero();
    assertThat(region.isAlive()).isTrue();
  }

  /** How many of {@code checks} checks of {@code key} under {@code rule} were admitted. */
  private static int admitted(int port, String rule, String key, int checks) {
    int admitted = 0;
    for (int i = 0; i < checks; i++) {
      TestNodes.Answer answer =
          TestNodes.post(
              port, "/v1/check", "{\"rule\":\"%s\",\"key\":\"%s\"}".formatted(rule, key));
      assertThat(answer.status()).as(answer.body()).isIn(200, 429);
      if (answer.json().path("allowed").asBoolean()) {
        admitted++;
      }
    }
    return admitted;
  }

  private static final Pattern LINK_UP =
      Pattern.compile("^sluice_region_link_up(?:\\{[^}]*\\})? ([0-9.]+)$", Pattern.MULTILINE);

  /** The region's {@code sluice_region_link_up} gauge: 1 while home answers, 0 when it is down. */
  private static int linkUp(int port) {
    Matcher matcher = LINK_UP.matcher(TestNodes.get(port, "/metrics").body());
    assertThat(matcher.find()).as("sluice_region_link_up in /metrics").isTrue();
    return (int) Double.parseDouble(matcher.group(1));
  }
}
