package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.load.LikeForLike.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class LikeForLikeTest {

  @Test
  void kind_ofTheHarnessRows() {
    assertThat(LikeForLike.kind("Sluice client (leases on)")).isEqualTo(Kind.CALLER);
    assertThat(LikeForLike.kind("Sluice client")).isEqualTo(Kind.CALLER);
    assertThat(LikeForLike.kind("Sluice client (token_bucket)")).isEqualTo(Kind.CALLER);
    assertThat(LikeForLike.kind("Sluice embedded, storage before issue 21 (BINARY, TTL per entry)"))
        .isEqualTo(Kind.CALLER);
    assertThat(LikeForLike.kind("Bucket4j client (delaying, 4 holders)")).isEqualTo(Kind.CALLER);
    assertThat(LikeForLike.kind("Sluice client (leases off)")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("Sluice embedded (leases off)")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("Sluice REST (grid node), wrk")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("Bucket4j client (batching)")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("Bucket4j embedded")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("Redis + Lua")).isEqualTo(Kind.OWNER);
    assertThat(LikeForLike.kind("HTTP ceiling (bare Javalin), wrk")).isEqualTo(Kind.CEILING);
    assertThat(LikeForLike.kind(DriverCeiling.NAME)).isEqualTo(Kind.CEILING);
    assertThat(LikeForLike.kind(PartitionBudgetCeiling.NAME)).isEqualTo(Kind.CEILING);
  }

  @Test
  void comparable_sameKindInOneGroup_orAgainstACeiling() {
    ContenderRun leased = run("Sluice client (leases on)", "client");
    ContenderRun owner = run("Sluice client (leases off)", "client");

    assertThat(LikeForLike.comparable(leased, run("Bucket4j client (delaying)", "client")))
        .isTrue();
    assertThat(LikeForLike.comparable(leased, run("Redis + Lua", "client"))).isFalse();
    assertThat(LikeForLike.comparable(owner, run("Redis + Lua", "client"))).isTrue();
    assertThat(LikeForLike.comparable(owner, run("Bucket4j client (delaying)", "client")))
        .isFalse();
    assertThat(LikeForLike.comparable(leased, run(DriverCeiling.NAME, "client"))).isTrue();
    assertThat(LikeForLike.comparable(owner, run("Bucket4j embedded", "embedded"))).isFalse();
  }

  private static ContenderRun run(String name, String group) {
    return ContenderRun.measured(name, group, List.of(ReportTest.round(1_000, 10, 0)));
  }
}
