package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.test.Seeds;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class SpaceSavingTest {

  /** The class comment's example: k = 2, stream a a b c a. */
  @Test
  void add_workedExample_evictsTheMinimumAndCarriesItAsError() {
    SpaceSaving sketch = new SpaceSaving(2);
    for (String key : List.of("a", "a", "b", "c", "a")) {
      sketch.add(key);
    }

    KeySummary summary = sketch.summary();

    assertThat(summary.keys()).containsExactly(new KeyCount("a", 3, 0), new KeyCount("c", 2, 1));
    assertThat(summary.unlistedAtMost()).isEqualTo(2);
    assertThat(summary.total()).isEqualTo(5);
  }

  @Test
  void summary_notFull_isExactAndListsEveryKey() {
    SpaceSaving sketch = new SpaceSaving(4);
    for (String key : List.of("x", "y", "x")) {
      sketch.add(key);
    }

    assertThat(sketch.summary())
        .isEqualTo(new KeySummary(List.of(new KeyCount("x", 2, 0), new KeyCount("y", 1, 0)), 0, 3));
  }

  /** Skewed random streams: every key's bounds hold, against exact counts. */
  @Test
  void summary_randomSkewedStreams_boundsHoldForEveryKey() {
    Seeds.run(
        "space-saving",
        100,
        seed -> {
          Random random = new Random(seed);
          int k = 1 + random.nextInt(16);
          int keys = 1 + random.nextInt(200);
          SpaceSaving sketch = new SpaceSaving(k);
          Map<String, Long> exact = new HashMap<>();
          int n = random.nextInt(5_000);
          for (int i = 0; i < n; i++) {
            // Zipf-like: small ids far more often.
            String key = "k" + (int) Math.floor(Math.pow(keys, random.nextDouble()));
            sketch.add(key);
            exact.merge(key, 1L, Long::sum);
          }
          assertBounds(sketch.summary(), exact, k);
        });
  }

  static void assertBounds(KeySummary summary, Map<String, Long> exact, int k) {
    long total = exact.values().stream().mapToLong(Long::longValue).sum();
    assertThat(summary.total()).isEqualTo(total);
    assertThat(summary.unlistedAtMost()).isLessThanOrEqualTo(total / k);
    Map<String, KeyCount> listed = new HashMap<>();
    for (KeyCount key : summary.keys()) {
      listed.put(key.key(), key);
      long truth = exact.getOrDefault(key.key(), 0L);
      assertThat(key.count()).as("count of %s", key.key()).isGreaterThanOrEqualTo(truth);
      assertThat(key.count() - key.error())
          .as("guaranteed of %s", key.key())
          .isLessThanOrEqualTo(truth);
      assertThat(key.error()).as("error of %s", key.key()).isLessThanOrEqualTo(total / k);
    }
    exact.forEach(
        (key, truth) -> {
          if (!listed.containsKey(key)) {
            assertThat(truth).as("unlisted %s", key).isLessThanOrEqualTo(summary.unlistedAtMost());
          }
        });
  }
}
