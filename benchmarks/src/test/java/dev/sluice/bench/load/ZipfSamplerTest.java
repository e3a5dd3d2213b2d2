package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfSamplerTest {

  @Test
  void probability_followsZipfsLaw_andSumsToOne() {
    ZipfSampler zipf = new ZipfSampler(100_000, 1.1);
    double sum = 0;
    for (int r = 0; r < zipf.size(); r++) {
      sum += zipf.probability(r);
    }

    assertThat(sum).isCloseTo(1.0, within(1e-9));
    assertThat(zipf.probability(0) / zipf.probability(1)).isCloseTo(Math.pow(2, 1.1), within(1e-9));
    assertThat(zipf.probability(9) / zipf.probability(99))
        .isCloseTo(Math.pow(10, 1.1), within(1e-6));
    // H(100,000; 1.1) ≈ 7.43, so the hottest key gets about 13.5 % of the draws.
    assertThat(zipf.probability(0)).isCloseTo(0.1346, within(0.001));
  }

  @Test
  void next_drawsMatchTheProbabilities() {
    ZipfSampler zipf = new ZipfSampler(100_000, 1.1);
    SplittableRandom random = new SplittableRandom(42);
    int draws = 1_000_000;
    int[] counts = new int[zipf.size()];
    for (int i = 0; i < draws; i++) {
      counts[zipf.next(random)]++;
    }

    for (int rank : new int[] {0, 1, 2, 9, 99}) {
      double expected = zipf.probability(rank) * draws;
      // Within 5 standard deviations of a binomial count.
      double sigma = Math.sqrt(expected * (1 - zipf.probability(rank)));
      assertThat((double) counts[rank]).as("rank " + rank).isCloseTo(expected, within(5 * sigma));
    }
    long tail = 0;
    double tailExpected = 0;
    for (int r = 50_000; r < zipf.size(); r++) {
      tail += counts[r];
      tailExpected += zipf.probability(r) * draws;
    }
    assertThat((double) tail).isCloseTo(tailExpected, within(5 * Math.sqrt(tailExpected)));
  }

  @Test
  void next_sameSeed_sameSequence_andAlwaysInRange() {
    ZipfSampler zipf = new ZipfSampler(1_000, 1.1);
    SplittableRandom a = new SplittableRandom(7);
    SplittableRandom b = new SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      int rank = zipf.next(a);
      assertThat(rank).isEqualTo(zipf.next(b)).isBetween(0, 999);
    }
  }

  @Test
  void keySpace_zipf_namesTheHottestKeyFirst() {
    KeySpace keys = KeySpace.zipf("z", 100_000, 1.1);

    assertThat(keys.size()).isEqualTo(100_000);
    assertThat(keys.key(0)).isEqualTo("z0");
    assertThat(keys.description()).contains("Zipf s = 1.1").contains("`z0` the hottest, 13.5 %");
  }

  @Test
  void constructor_badArguments_areRefused() {
    assertThatThrownBy(() -> new ZipfSampler(0, 1.1)).hasMessageContaining("n must be");
    assertThatThrownBy(() -> new ZipfSampler(10, 0)).hasMessageContaining("exponent");
  }
}
