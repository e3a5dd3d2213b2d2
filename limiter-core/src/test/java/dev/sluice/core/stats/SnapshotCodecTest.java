package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotCodecTest {

  @Test
  void decode_encoded_isTheSameSnapshot() {
    NodeSnapshot snapshot =
        new NodeSnapshot(
            "10.0.0.1:5701",
            1_800_000_000L,
            2,
            List.of(
                new RuleRates(
                    "login",
                    new int[] {1, 2},
                    new int[] {3, 4},
                    new int[] {0, 5},
                    new int[] {1, 0},
                    new int[] {250, 0})),
            new LatencySeries(
                new int[] {1, 0}, new int[] {9, 0}, new int[] {12, 0}, new int[] {15, 0}),
            new LeaseTotals(1, 2, 3, 4, 5, 6),
            List.of(
                new FrontEndTotals(
                    "rest", List.of("a:8080"), -1, List.of(new CommandTotals("GET /", 7, 1)))),
            Map.of("login", new KeySummary(List.of(new KeyCount("203.0.113.7", 9, 2)), 2, 11)),
            3,
            new MemberFacts(
                "10.0.0.1:5701",
                "uuid-1",
                true,
                42,
                90,
                true,
                5,
                1,
                List.of(new ConnectedClient("c-1", "app", "JVM", "/10.0.0.9:4242"))));

    NodeSnapshot back = SnapshotCodec.decode(SnapshotCodec.encode(snapshot));

    assertThat(back).usingRecursiveComparison().isEqualTo(snapshot);
  }

  @Test
  void decode_unknownFormat_isRefused() {
    byte[] bytes = SnapshotCodec.encode(NodeStats.manual("n").snapshot(0, 0, null));
    bytes[0] = 99;

    assertThatThrownBy(() -> SnapshotCodec.decode(bytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format 99");
  }
}
