package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WrkRunnerTest {

  @Test
  void parse_summaryLine_givesCountsLatencyAndDuration() {
    String output =
        "Running 5s test @ http://127.0.0.1:8080/v1/check\n"
            + "  2 threads and 16 connections\n"
            + "SLUICE_WRK requests=1200 duration_us=5000000 ok=1000 limited=190 other=10 connect=0"
            + " read=2 write=0 timeout=1 p50=850 p99=4200 p999=9100\n";

    RoundResult round = WrkRunner.parse(output);

    assertThat(round.operations()).isEqualTo(1_203);
    assertThat(round.count(Outcome.ALLOWED)).isEqualTo(1_000);
    assertThat(round.count(Outcome.DENIED)).isEqualTo(190);
    assertThat(round.count(Outcome.ERROR)).isEqualTo(13);
    assertThat(round.throughputPerSecond()).isEqualTo(240.6);
    assertThat(round.admittedPerSecond()).isEqualTo(200);
    assertThat(round.percentileMicros(50)).isEqualTo(850);
    assertThat(round.percentileMicros(99.9)).isEqualTo(9_100);
    assertThat(round.firstError()).contains("10 answers neither 200 nor 429");
    assertThat(round.exactness()).isNull();
  }

  @Test
  void parse_noSummary_saysWhatWrkPrinted() {
    assertThatThrownBy(() -> WrkRunner.parse("unable to connect to 127.0.0.1:1 Connection refused"))
        .hasMessageContaining("no summary line")
        .hasMessageContaining("Connection refused");
  }

  @Test
  void parse_percentileNotPrinted_isAHarnessError() {
    RoundResult round =
        WrkRunner.parse(
            "SLUICE_WRK requests=1 duration_us=1000000 ok=1 limited=0 other=0 connect=0 read=0"
                + " write=0 timeout=0 p50=1 p99=2 p999=3");

    assertThatThrownBy(() -> round.percentileMicros(90)).hasMessageContaining("p90.0");
  }

  @Test
  void command_roundsUpToWholeSeconds_andBoundsEachThreadsCount() throws Exception {
    if (WrkRunner.findBinary().isEmpty()) {
      return; // the command needs the binary's path; the parse tests above still run
    }
    WrkRunner wrk = WrkRunner.start("test", 8080, "bench", KeySpace.uniform("k", 10));
    WrkRunner other = WrkRunner.start("other", 8080, "bench", KeySpace.uniform("k", 10));

    List<String> command = wrk.command(Duration.ofMillis(400), 1_000);
    assertThat(command)
        .contains("-t2", "-c16", "-d1s", "http://127.0.0.1:8080/v1/check")
        .endsWith("10", "500");
    assertThat(command.subList(command.size() - 5, command.size() - 2))
        .satisfiesExactly(
            dashes -> assertThat(dashes).isEqualTo("--"),
            rule -> assertThat(rule).isEqualTo("bench"),
            prefix -> assertThat(prefix).matches("c[0-9]+\\|k"));
    // Each runner sends keys of its own, so that two rows on one node share no state.
    List<String> others = other.command(Duration.ofMillis(400), 1_000);
    assertThat(others.get(others.size() - 3)).isNotEqualTo(command.get(command.size() - 3));
    assertThat(wrk.command(Duration.ofMillis(5_000), 1_000)).contains("-d5s");
  }

  @Test
  void script_isOnTheClasspath_andPrintsTheSummaryLine() throws Exception {
    String script =
        new String(
            WrkRunner.class.getResourceAsStream("wrk-check.lua").readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8);

    assertThat(script).contains("SLUICE_WRK requests=%d").contains("wrk.thread:stop()");
  }
}
