package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sliding log's cap is the JVM-wide system property {@value
 * Limit#SLIDING_LOG_MAX_LIMIT_PROPERTY}, read once when {@link Limit} loads. The parsing is tested
 * directly; that the property really sets the cap is tested in child JVMs, since this one loaded
 * {@code Policy} long ago.
 */
class SlidingLogCapTest {

  @Test
  void slidingLogMaxLimit_unset_isTheDefaultTenThousand() {
    assertThat(Limit.slidingLogMaxLimit(null)).isEqualTo(10_000L);
    assertThat(Limit.DEFAULT_SLIDING_LOG_MAX_LIMIT).isEqualTo(10_000L);
  }

  @Test
  void slidingLogMaxLimit_wholeNumberInRange_isTheCap() {
    assertThat(Limit.slidingLogMaxLimit("1")).isEqualTo(1);
    assertThat(Limit.slidingLogMaxLimit(" 50000 ")).isEqualTo(50_000);
    assertThat(Limit.slidingLogMaxLimit("1000000")).isEqualTo(1_000_000);
  }

  @Test
  void slidingLogMaxLimit_malformedOrOutOfRange_rejectedNamingTheProperty() {
    for (String bad :
        new String[] {"", "0", "-5", "ten", "1e4", "1000001", "99999999999999999999"}) {
      assertThatThrownBy(() -> Limit.slidingLogMaxLimit(bad))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("sluice.slidingLog.maxLimit must be a whole number from 1 to")
          .hasMessageContaining("was '" + bad + "'");
    }
  }

  @Test
  void policy_propertySetToTwenty_acceptsTwentyRefusesTwentyOne() throws Exception {
    List<String> lines = probe("-Dsluice.slidingLog.maxLimit=20", "20", "21");
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo("ok 20");
    assertThat(lines.get(1))
        .startsWith("refused limit limit: ")
        .contains("allows at most 20 per window, was 21");
  }

  @Test
  void policy_propertyRaisedAboveTheDefault_acceptsTheLargerLimit() throws Exception {
    assertThat(probe("-Dsluice.slidingLog.maxLimit=50000", "50000", "50001"))
        .first()
        .isEqualTo("ok 50000");
  }

  @Test
  void policy_propertyUnset_capsAtTenThousand() throws Exception {
    List<String> lines = probe(null, "10000", "10001");
    assertThat(lines.get(0)).isEqualTo("ok 10000");
    assertThat(lines.get(1)).contains("allows at most 10000 per window, was 10001");
  }

  @Test
  void policy_propertyMalformed_failsNamingTheProperty() throws Exception {
    assertThat(probe("-Dsluice.slidingLog.maxLimit=lots", "5"))
        .containsExactly(
            "failed sluice.slidingLog.maxLimit must be a whole number from 1 to 1000000,"
                + " was 'lots'");
  }

  /** Runs {@link SlidingLogCapProbe} in a fresh JVM on this test's class path. */
  private static List<String> probe(String property, String... limits)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (property != null) {
      command.add(property);
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SlidingLogCapProbe.class.getName());
    command.addAll(List.of(limits));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("probe JVM did not finish in 60 s");
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().toList();
  }
}
