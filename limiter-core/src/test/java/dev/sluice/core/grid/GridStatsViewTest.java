package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.stats.ClusterStats;
import dev.sluice.core.stats.KeyCount;
import dev.sluice.core.stats.MemberFacts;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.core.stats.RuleRates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three members' console stats, gathered by the executor task and merged, seen from a client. */
class GridStatsViewTest {
  private final GridTestCluster cluster = GridTestCluster.start(3);
  private final List<NodeStats> stats = new ArrayList<>();

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void stats_threeMembers_sumsTheirDecisionsAndListsEveryMember() {
    cluster.awaitSafe(); // partitions owned add up once settled
    Decision denied = Decision.deny(5, 0, 1_000_000L, 1_000_000L);
    for (int i = 0; i < 3; i++) {
      NodeStats member = NodeStats.manual("member-" + i);
      stats.add(member);
      new GridStatsView(cluster.members.get(i), "grid", member, Duration.ofSeconds(5));
      for (int d = 0; d <= i; d++) {
        member.tally("login").record(Check.of("login", "mallory"), denied); // 1 + 2 + 3
      }
    }
    member(2).tally("login").record(Check.of("login", "eve"), denied);
    long second = NodeStats.lastClosedSecond(System.currentTimeMillis());
    stats.forEach(s -> s.tick(second));
    HazelcastInstance client = cluster.newClient();
    GridStatsView view =
        new GridStatsView(client, "grid", NodeStats.manual("client"), Duration.ofSeconds(5));

    ClusterStats merged = view.stats(30);

    assertThat(merged.nodes()).contains("member-0", "member-1", "member-2", "client");
    RuleRates login = merged.rates().get(0);
    assertThat(login.rule()).isEqualTo("login");
    assertThat(login.total()).isEqualTo(7);
    assertThat(merged.grid().members()).hasSize(3).allMatch(MemberFacts::answered);
    assertThat(merged.grid().members().stream().mapToInt(MemberFacts::partitionsOwned).sum())
        .isEqualTo(merged.grid().partitionCount());
    assertThat(merged.grid().clients()).hasSize(1);
    assertThat(view.limitedKeys("login").get("login").keys())
        .containsExactly(new KeyCount("mallory", 6, 0), new KeyCount("eve", 1, 0));
  }

  private NodeStats member(int i) {
    return stats.get(i);
  }
}
