package dev.sluice.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator's command: every standard trace under every policy at a small scale admits nothing
 * over its bound, and the same options print the same tables.
 */
class LeaseSimulatorTest {

  /** A hundredth of each standard trace (half a second at least), every policy. */
  @Test
  void run_everyStandardTraceAtAHundredthScale_overAdmitsNothing() throws Exception {
    List<Simulation.Result> results =
        LeaseSimulator.run(LeaseSimulator.Options.parse(new String[] {"--scale", "0.01"}), quiet());

    assertThat(results).hasSize(Traces.standard(1, 0.01).size() * SimPolicy.values().length);
    assertThat(results).allSatisfy(r -> assertThat(r.overAdmitted()).as(r.trace()).isZero());
    assertThat(results)
        .filteredOn(r -> r.policy().equals("off"))
        .allSatisfy(r -> assertThat(r.ownerShare()).as(r.trace()).isEqualTo(1.0));
  }

  @Test
  void run_sameOptionsTwice_printsTheSameTables() throws Exception {
    String[] args = {"--trace", "churn", "--trace", "hot-saturated", "--scale", "0.02"};

    assertThat(printed(args)).isEqualTo(printed(args)).contains("#### churn: gcra 50/1s");
  }

  @Test
  void parse_unknownPolicy_namesTheOnesThereAre() {
    assertThatThrownBy(() -> LeaseSimulator.Options.parse(new String[] {"--policies", "lru"}))
        .hasMessageContaining("no lease policy 'lru'; there are off, kinds");
  }

  private static String printed(String[] args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    LeaseSimulator.run(
        LeaseSimulator.Options.parse(args), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static PrintStream quiet() {
    return new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8);
  }
}
