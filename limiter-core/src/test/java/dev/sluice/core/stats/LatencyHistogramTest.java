package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.test.Seeds;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class LatencyHistogramTest {

  /** The class comment's example: 300 µs falls in bucket 72, [262,144, 327,680) ns. */
  @Test
  void bucket_300Micros_isBucket72() {
    assertThat(LatencyHistogram.bucket(300_000)).isEqualTo(72);
    assertThat(LatencyHistogram.upperBound(72)).isEqualTo(327_679);
    assertThat(LatencyHistogram.bucket(262_144)).isEqualTo(72);
    assertThat(LatencyHistogram.bucket(262_143)).isEqualTo(71);
  }

  @Test
  void drainSecond_hundredDecisions_reportsCountMeanP99AndMax() {
    LatencyHistogram histogram = new LatencyHistogram();
    for (int i = 1; i <= 100; i++) {
      histogram.record(i * 10_000L); // 10 µs .. 1,000 µs
    }

    int[] second = histogram.drainSecond();

    // mean 505 µs; the 99th smallest is 990 µs, reported as its bucket's upper end, at most the max
    assertThat(second[0]).isEqualTo(100);
    assertThat(second[1]).isEqualTo(505);
    assertThat(second[2]).isBetween(990, 1000);
    assertThat(second[3]).isEqualTo(1000);
    assertThat(histogram.drainSecond()).containsExactly(0, 0, 0, 0);
  }

  /** The p99 is never below the true one and at most 25 % above it. */
  @Test
  void drainSecond_randomLatencies_p99WithinItsBound() {
    Seeds.run(
        "p99",
        200,
        seed -> {
          Random random = new Random(seed);
          LatencyHistogram histogram = new LatencyHistogram();
          long[] values = new long[1 + random.nextInt(2_000)];
          for (int i = 0; i < values.length; i++) {
            values[i] = 1_000 + (long) Math.exp(random.nextDouble() * 16); // 1 µs .. ~10 ms
            histogram.record(values[i]);
          }
          Arrays.sort(values);
          long truth = values[(int) Math.ceil(values.length * 0.99) - 1];
          int p99 = histogram.drainSecond()[2];
          assertThat((long) p99 * 1000).isGreaterThanOrEqualTo(truth);
          assertThat((double) p99).isLessThanOrEqualTo(Math.ceil(truth * 1.25 / 1000.0));
        });
  }
}
