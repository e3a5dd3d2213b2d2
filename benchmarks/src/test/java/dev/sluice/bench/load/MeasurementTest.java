package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MeasurementTest {

  @Test
  void orderOfRound_evenCount_eachPlaceOnce_andEachContenderAfterEachOtherOnce() {
    for (int n : new int[] {2, 4, 6, 8}) {
      Map<List<Integer>, Integer> adjacent = new HashMap<>();
      int[][] places = new int[n][n];
      for (int r = 0; r < n; r++) {
        List<Integer> order = Measurement.orderOfRound(r, n);
        assertThat(order).as("n=%d r=%d", n, r).hasSize(n).doesNotHaveDuplicates();
        for (int k = 0; k < n; k++) {
          places[order.get(k)][k]++;
          if (k > 0) {
            adjacent.merge(List.of(order.get(k - 1), order.get(k)), 1, Integer::sum);
          }
        }
      }
      for (int[] contender : places) {
        assertThat(contender).as("n=%d: once in each place", n).containsOnly(1);
      }
      assertThat(adjacent).as("n=%d: every ordered pair once", n).hasSize(n * (n - 1));
      assertThat(adjacent.values()).containsOnly(1);
    }
  }

  @Test
  void orderOfRound_oddCount_noContenderAlwaysAfterTheSameOne() {
    for (int n : new int[] {3, 5, 7}) {
      Map<List<Integer>, Integer> adjacent = new HashMap<>();
      for (int r = 0; r < 2 * n; r++) {
        List<Integer> order = Measurement.orderOfRound(r, n);
        assertThat(order).hasSize(n).doesNotHaveDuplicates();
        for (int k = 1; k < n; k++) {
          adjacent.merge(List.of(order.get(k - 1), order.get(k)), 1, Integer::sum);
        }
      }
      assertThat(adjacent).as("n=%d: every ordered pair, twice", n).hasSize(n * (n - 1));
      assertThat(adjacent.values()).containsOnly(2);
    }
  }
}
