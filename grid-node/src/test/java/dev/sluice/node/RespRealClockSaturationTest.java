package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.TimeSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One key hammered on the real clock through the Redis port by several connections, some one call
 * at a time and some pipelined 16 deep (decided as batches): every admission, judged by the same
 * judge as the other real-clock tests ({@code AdmissionBounds}), stays within the GCRA bound (burst
 * plus rate over any interval).
 */
@Tag("realtime")
class RespRealClockSaturationTest {
  @TempDir Path dir;

  @Test
  void oneKey_hammeredByPlainAndPipelinedConnections_admitsNoMoreThanItsBound() throws Exception {
    List<SluiceNode> nodes = RespNodes.start(1, TimeSource.system(), dir, Map.of());
    try {
      SluiceNode node = nodes.get(0);
      // burst 9 (limit 10), 50 a second: a bucket that refills between every few calls.
      try (RespLoad load = new RespLoad(List.of(node::respPort), List.of("hot"), 9, 50, 1)) {
        load.start(2, 1, Duration.ofMillis(3_500));
        load.start(2, 16, Duration.ofMillis(3_500));
        load.await();
        System.out.printf(
            "%d calls: %d admitted, %d denied%n", load.calls(), load.admitted(), load.denied());

        assertThat(load.failures()).isZero();
        assertThat(load.denied()).as("the key was saturated").isPositive();
        assertThat(load.admitted())
            .as("the burst and some of the rate were admitted")
            .isGreaterThan(10);
        assertThat(load.violations()).isEmpty();
      }
    } finally {
      nodes.forEach(SluiceNode::close);
    }
  }
}
