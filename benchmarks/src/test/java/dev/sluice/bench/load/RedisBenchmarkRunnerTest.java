package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBenchmarkRunnerTest {

  /** redis-benchmark 7.0's output for one test, cut short; its progress lines end in CR. */
  static final String OUTPUT =
      "SET k x: rps=0.0 (overall: 0.0) avg_msec=-nan (overall: -nan)\r"
          + "                                                    \r"
          + "====== SET k x ======\n"
          + "  2000 requests completed in 0.02 seconds\n"
          + "  4 parallel clients\n"
          + "\n"
          + "Latency by percentile distribution:\n"
          + "0.000% <= 0.015 milliseconds (cumulative count 38)\n"
          + "50.000% <= 0.031 milliseconds (cumulative count 1390)\n"
          + "99.805% <= 0.271 milliseconds (cumulative count 1998)\n"
          + "99.902% <= 0.279 milliseconds (cumulative count 2000)\n"
          + "100.000% <= 0.279 milliseconds (cumulative count 2000)\n"
          + "\n"
          + "Cumulative distribution of latencies:\n"
          + "99.000% <= 0.103 milliseconds (cumulative count 1980)\n"
          + "99.950% <= 0.207 milliseconds (cumulative count 1999)\n"
          + "100.000% <= 0.303 milliseconds (cumulative count 2000)\n"
          + "\n"
          + "Summary:\n"
          + "  throughput summary: 125000.00 requests per second\n"
          + "  latency summary (msec):\n"
          + "          avg       min       p50       p95       p99       max\n"
          + "        0.030     0.008     0.031     0.039     0.095     0.279\n";

  @Test
  void parse_summary_givesRateLatencyAndTheRoundsLength() {
    RoundResult round = RedisBenchmarkRunner.parse(OUTPUT, 2_000);

    assertThat(round.operations()).isEqualTo(2_000);
    assertThat(round.throughputPerSecond()).isCloseTo(125_000, within(1.0));
    assertThat(round.elapsedNanos()).isEqualTo(16_000_000);
    assertThat(round.percentileMicros(50)).isEqualTo(31);
    assertThat(round.percentileMicros(99)).isEqualTo(95);
    // The first line of the percentile distribution at or above 99.9 %.
    assertThat(round.percentileMicros(99.9)).isEqualTo(279);
    assertThat(round.exactness()).isNull();
    assertThat(round.count(Outcome.ERROR)).isZero();
  }

  @Test
  void parse_noSummary_saysWhatItPrinted() {
    assertThatThrownBy(
            () ->
                RedisBenchmarkRunner.parse(
                    "Could not connect to Redis at 127.0.0.1:1: Connection refused", 10))
        .hasMessageContaining("no summary")
        .hasMessageContaining("Connection refused");
  }

  @Test
  void commandLine_sameFlagsForEveryServer_randomKeysOnlyWhereTheKeySaysSo() {
    assumeTrue(RedisBenchmarkRunner.findBinary().isPresent(), "redis-benchmark is not installed");
    RedisBenchmarkRunner random =
        RedisBenchmarkRunner.start(
            "t", 6379, 16, true, List.of("CL.THROTTLE", "k" + RedisBenchmarkRunner.RANDOM, "1"));
    RedisBenchmarkRunner hot =
        RedisBenchmarkRunner.start("t", 6379, 1, false, List.of("SET", "hot", "x"));

    assertThat(random.commandLine(5_000))
        .containsSubsequence("-c", "50", "-P", "16", "-n", "5000", "-r", "1000000")
        .endsWith("CL.THROTTLE", "k__rand_int__", "1");
    assertThat(hot.commandLine(5_000)).doesNotContain("-r").endsWith("SET", "hot", "x");
    assertThatThrownBy(
            () -> RedisBenchmarkRunner.start("t", 6379, 1, true, List.of("SET", "hot", "x")))
        .hasMessageContaining("__rand_int__");
  }

  @Test
  void requestsFor_fillTheRoundAtTheLastRate_withinItsBound() {
    assumeTrue(RedisBenchmarkRunner.findBinary().isPresent(), "redis-benchmark is not installed");
    RedisBenchmarkRunner runner =
        RedisBenchmarkRunner.start("t", 6379, 16, false, List.of("SET", "hot", "x"));

    assertThat(runner.requestsFor(Duration.ofSeconds(2), 1_000_000))
        .isEqualTo(2 * RedisBenchmarkRunner.FIRST_GUESS_PER_SECOND);
    assertThat(runner.requestsFor(Duration.ofSeconds(2), 1_000)).isEqualTo(1_000);
    // Never less than one pipeline per connection.
    assertThat(runner.requestsFor(Duration.ofNanos(1), 1_000_000)).isEqualTo(50 * 16);
  }

  @Test
  void round_againstRedis_measuresAndLearnsTheRate_andAnErrorAnswerFailsTheRound(@TempDir Path logs)
      throws Exception {
    assumeTrue(RedisBenchmarkRunner.findBinary().isPresent(), "redis-benchmark is not installed");
    assumeTrue(RedisServer.findBinary().isPresent(), "redis-server is not installed");
    Workload load =
        new Workload(
            1,
            KeySpace.hot("unused"),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            1,
            1_000_000,
            false);
    try (RedisServer redis = RedisServer.start(RedisServer.findBinary().get(), logs)) {
      RedisBenchmarkRunner set =
          RedisBenchmarkRunner.start(
              "set", redis.port(), 4, true, List.of("SET", "k" + RedisBenchmarkRunner.RANDOM, "x"));
      RoundResult first = set.round(load, Duration.ofMillis(200), 1_000_000);
      assertThat(first.operations()).isEqualTo(RedisBenchmarkRunner.FIRST_GUESS_PER_SECOND / 5);
      assertThat(first.throughputPerSecond()).isPositive();
      RoundResult second = set.round(load, Duration.ofMillis(200), 1_000_000);
      long expected = Math.max(4 * 50, (long) (first.throughputPerSecond() * 0.2));
      assertThat(second.operations()).isBetween(expected - 1, expected + 1);

      // redis-server has no CL.THROTTLE: the round fails with its answer, it is not throughput.
      RedisBenchmarkRunner unknown =
          RedisBenchmarkRunner.start(
              "unknown", redis.port(), 1, false, List.of("CL.THROTTLE", "k", "1", "2", "3"));
      assertThatThrownBy(() -> unknown.round(load, Duration.ofMillis(200), 1_000_000))
          .hasMessageContaining("exited with 1")
          .hasMessageContaining("unknown command");
    }
  }
}
