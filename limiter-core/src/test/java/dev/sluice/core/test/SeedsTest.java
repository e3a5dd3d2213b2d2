package dev.sluice.core.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(Seeds.class)
class SeedsTest {
  private static final List<Long> PARAMETERIZED = new ArrayList<>();

  @Test
  void derive_sameParentAndName_sameSeedOnEveryJvm() {
    // A fixed value: a change to the derivation would make old replay commands draw other seeds.
    assertThat(Seeds.derive(42, "case")).isEqualTo(-6151852360564671336L);
    assertThat(Seeds.derive(42, "case")).isNotEqualTo(Seeds.derive(43, "case"));
    assertThat(Seeds.derive(42, "case")).isNotEqualTo(Seeds.derive(42, "casf"));
    assertThat(Seeds.derive(0, "")).isNotZero();
  }

  @Test
  void seed_sameTest_sameSeed_namesGiveSeparateStreams() {
    assertThat(Seeds.seed()).isEqualTo(Seeds.seed());
    assertThat(Seeds.seed("a")).isEqualTo(Seeds.seed("a")).isNotEqualTo(Seeds.seed("b"));
    assertThat(Seeds.random("a").nextLong()).isEqualTo(Seeds.random("a").nextLong());
    assertThat(Seeds.seed()).isEqualTo(Seeds.derive(Seeds.base(), uniqueIdOf("seed_sameTest")));
  }

  @Test
  void seed_fromAThreadTheTestStarted_isTheTestsSeed() throws Exception {
    long[] seen = new long[1];
    Thread thread = new Thread(() -> seen[0] = Seeds.seed("worker"));
    thread.start();
    thread.join();
    assertThat(seen[0]).isEqualTo(Seeds.seed("worker"));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void seed_eachInvocationOfAParameterizedTest_hasItsOwn(int invocation) {
    PARAMETERIZED.add(Seeds.seed());
    if (invocation == 2) {
      assertThat(PARAMETERIZED).doesNotHaveDuplicates();
    }
  }

  @Test
  void run_givesEachCaseItsOwnSeed_andAFailureNamesTheCase() {
    List<Long> seeds = new ArrayList<>();
    Seeds.run("collect", 50, seeds::add);
    assertThat(seeds).hasSize(50).doesNotHaveDuplicates();
    List<Long> again = new ArrayList<>();
    Seeds.run("collect", 50, again::add);
    assertThat(again).isEqualTo(seeds);

    long third = seeds.get(3);
    assertThatThrownBy(
            () ->
                Seeds.run(
                    "collect", 50, seed -> assertThat(seed).as("case value").isNotEqualTo(third)))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("collect failed on case 3 (case seed " + third + "): ")
        .hasMessageContaining("case value");
  }

  @Test
  void replayCommand_unitTest_runsTheMethodWithTheBaseSeedThroughTheReactor() {
    assertThat(Seeds.replayCommand("rest-api", "RestFuzzTest", "fuzz", -7, false, Map.of()))
        .isEqualTo(
            "./mvnw -B -pl rest-api -am test -Dtest=RestFuzzTest#fuzz"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.seed=-7");
  }

  @Test
  void replayCommand_integrationTestInTheReliabilityProfile_goesThroughFailsafe() {
    assertThat(
            Seeds.replayCommand(
                "grid-node", "FaultsIT", "kill", 5, true, Map.of("sluice.fuzz.requests", "9")))
        .isEqualTo(
            "./mvnw -B -Preliability -pl grid-node -am verify -Dtest=NoSuchTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=FaultsIT#kill"
                + " -Dsluice.fuzz.requests=9 -Dsluice.seed=5");
  }

  /** This class's JUnit unique id for the method whose name starts with {@code prefix}. */
  private static String uniqueIdOf(String prefix) {
    for (var method : SeedsTest.class.getDeclaredMethods()) {
      if (method.getName().startsWith(prefix)) {
        return "[engine:junit-jupiter]/[class:"
            + SeedsTest.class.getName()
            + "]/[method:"
            + method.getName()
            + "()]";
      }
    }
    throw new IllegalArgumentException(prefix);
  }
}
