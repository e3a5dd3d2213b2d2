package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.test.Seeds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class KeySummaryTest {

  /** The class comment's example: member A saw a a a b c, member B a d d, k = 2. */
  @Test
  void merge_workedExample_sumsCountsAndAbsentBounds() {
    SpaceSaving a = new SpaceSaving(2);
    SpaceSaving b = new SpaceSaving(2);
    List.of("a", "a", "a", "b", "c").forEach(a::add);
    List.of("a", "d", "d").forEach(b::add);

    KeySummary merged = KeySummary.merge(List.of(a.summary(), b.summary()));

    assertThat(merged.keys())
        .containsExactly(new KeyCount("a", 4, 0), new KeyCount("d", 4, 2), new KeyCount("c", 3, 2));
    assertThat(merged.unlistedAtMost()).isEqualTo(3);
    assertThat(merged.total()).isEqualTo(8);
  }

  /** Several members' (and windows') sketches of random streams: the bounds hold for the union. */
  @Test
  void merge_randomMembers_keepsSpaceSavingsBoundsForTheCombinedStream() {
    Seeds.run(
        "merge",
        100,
        seed -> {
          Random random = new Random(seed);
          int k = 1 + random.nextInt(12);
          int keys = 1 + random.nextInt(100);
          Map<String, Long> exact = new HashMap<>();
          List<KeySummary> summaries = new ArrayList<>();
          for (int m = 1 + random.nextInt(5); m > 0; m--) {
            SpaceSaving sketch = new SpaceSaving(k);
            int offset = random.nextInt(keys); // members see differently skewed streams
            for (int i = random.nextInt(2_000); i > 0; i--) {
              String key = "k" + (offset + (int) Math.floor(Math.pow(keys, random.nextDouble())));
              sketch.add(key);
              exact.merge(key, 1L, Long::sum);
            }
            summaries.add(sketch.summary());
          }
          KeySummary merged = KeySummary.merge(summaries);
          SpaceSavingTest.assertBounds(merged, exact, k);
          SpaceSavingTest.assertBounds(merged.top(1 + random.nextInt(5)), exact, 1);
        });
  }

  @Test
  void top_dropsKeys_raisesUnlistedAtMostToTheLargestDropped() {
    KeySummary summary =
        new KeySummary(
            List.of(new KeyCount("a", 9, 0), new KeyCount("b", 7, 1), new KeyCount("c", 5, 5)),
            2,
            30);

    assertThat(summary.top(1)).isEqualTo(new KeySummary(List.of(new KeyCount("a", 9, 0)), 7, 30));
    assertThat(summary.top(3)).isSameAs(summary);
  }
}
