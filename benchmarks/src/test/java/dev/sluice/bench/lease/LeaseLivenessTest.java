package dev.sluice.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.lease.SimTrace.Request;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leases are really in play where the policy means them to be: the liveness half of the real-clock
 * saturation contract (limiter-core's {@code RealClockSaturationContract}, which keeps the
 * exactness half), on the virtual clock of the simulator, where the same requests give the same
 * answer on any machine. Its keys and callers are the contract's: four holders (two members, two
 * clients there), hot keys of 150 a second hammered by all four, and steady or warm callers beside
 * one that saturates the key. Each test runs every policy that leases; over-admission is judged as
 * in every simulation and must be 0.
 */
class LeaseLivenessTest {
  private static final long SECOND = SimTrace.SECOND;
  private static final int HOLDERS = 4;

  /**
   * t = 0 to 3 s: one key of 150 a second, 1,000 requests a second from each of four holders in
   * turn. Every algorithm that leases answers some admissions from a lease; a leaky bucket shapes
   * instead, and answers nothing from one.
   */
  @ParameterizedTest(name = "{0} under {1}")
  @CsvSource({
    "token_bucket 150/1s, kinds",
    "gcra 150/1s, kinds",
    "sliding_window 150/1s, kinds",
    "fixed_window 150/500ms, kinds",
    "sliding_log 150/1s, kinds",
    "sliding_buckets 150/1s buckets 10, kinds",
    "leaky_bucket 150/1s burst 5, kinds"
  })
  void hotKey_saturatedByFourHolders_admitsFromLeasesWhereTheAlgorithmLeases(
      String rule, String policy) {
    Simulation.Result result = run(rule, policy, () -> evenly(3 * SECOND, 1_000, 1_000, 1_000));

    assertThat(result.overAdmitted()).as("over-admitted").isZero();
    assertThat(result.admitted()).as("admitted").isLessThan(result.requests());
    if (rule.startsWith("leaky_bucket")) {
      assertThat(result.answeredLocally()).as("answers from a lease").isZero();
    } else {
      assertThat(admittedFromLeases(result)).as("admissions from a lease").isPositive();
    }
  }

  /**
   * The same on a sliding window: its key is at its limit, so it is paced, and some denials come
   * from a paced lease, answered by the holder between the instants its permits become usable.
   */
  @ParameterizedTest
  @EnumSource(
      value = SimPolicy.class,
      names = {"KINDS"})
  void hotSlidingWindow_atItsLimit_deniesFromAPacedLease(SimPolicy policy) {
    Simulation.Result result =
        run("sliding_window 150/1s", policy.label(), () -> evenly(3 * SECOND, 1_000, 1_000, 1_000));

    assertThat(result.overAdmitted()).isZero();
    assertThat(result.pacedLeases()).as("paced leases").isPositive();
    assertThat(result.deniedLocally()).as("denials from a paced lease").isPositive();
  }

  /**
   * t = 0 to 3 s: a fixed window of 40 a second, one holder asking 50 times a second (past the
   * limit in every window), three asking 6 times a second each (steady callers). The steady callers
   * lease to the end of the window: some admissions come from such a lease.
   */
  @ParameterizedTest
  @EnumSource(
      value = SimPolicy.class,
      names = {"KINDS"})
  void steadyCallers_besideASaturatingOne_leaseToTheEndOfTheFixedWindow(SimPolicy policy) {
    Simulation.Result result =
        run("fixed_window 40/1s", policy.label(), () -> evenly(3 * SECOND, 50, 6, 6, 6));

    assertThat(result.overAdmitted()).isZero();
    assertThat(result.admitted()).as("saturated").isLessThan(result.requests());
    assertThat(result.windowLeases()).as("leases to the end of the window").isPositive();
    assertThat(admittedFromLeases(result)).as("admissions from a lease").isPositive();
  }

  /**
   * t = 0 to 3 s: a fixed window of 100 a second, one holder asking 90 times a second, three asking
   * 20 times a second each (warm callers, never a burst): some admissions come from a lease.
   */
  @ParameterizedTest
  @EnumSource(
      value = SimPolicy.class,
      names = {"KINDS"})
  void warmCallers_besideASaturatingOne_admitFromLeasesOnTheFixedWindow(SimPolicy policy) {
    Simulation.Result result =
        run("fixed_window 100/1s", policy.label(), () -> evenly(3 * SECOND, 90, 20, 20, 20));

    assertThat(result.overAdmitted()).isZero();
    assertThat(result.admitted()).as("saturated").isLessThan(result.requests());
    assertThat(admittedFromLeases(result)).as("admissions from a lease").isPositive();
  }

  private static long admittedFromLeases(Simulation.Result result) {
    return result.answeredLocally() - result.deniedLocally();
  }

  private static Simulation.Result run(
      String rule, String policy, Supplier<Iterator<Request>> requests) {
    SimTrace trace = new SimTrace("liveness", "the contract's callers", rule, HOLDERS, requests);
    return new Simulation(trace, SimPolicy.of(policy), new Simulation.Costs(500_000, 1_000)).run();
  }

  /**
   * One key asked by holder i {@code perSecond[i]} times a second, evenly, for {@code
   * durationNanos}; each holder starts at an offset of its own, so that no two ask at once.
   */
  private static Iterator<Request> evenly(long durationNanos, int... perSecond) {
    List<Request> requests = new ArrayList<>();
    for (int holder = 0; holder < perSecond.length; holder++) {
      long spacing = SECOND / perSecond[holder];
      for (long at = holder * spacing / perSecond.length + holder;
          at < durationNanos;
          at += spacing) {
        requests.add(new Request(at, holder, "hot", 1));
      }
    }
    requests.sort(Comparator.comparingLong(Request::atNanos));
    return requests.iterator();
  }
}
