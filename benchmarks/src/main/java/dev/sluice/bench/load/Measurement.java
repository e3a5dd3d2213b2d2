package dev.sluice.bench.load;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Measures the contenders of one scenario side by side: starts every one, warms each up, then
 * interleaves the measured rounds (round 1 of every contender, then round 2, ...) so that a noisy
 * neighbour on the shared machine disturbs all of them alike, and closes them all. A contender that
 * cannot start, or whose calls mostly fail, is reported as not run, with the reason.
 *
 * <p>Each round runs the contenders in an order of its own ({@link #orderOfRound}, a Williams
 * design), so that no contender always runs in the same place or after the same one. With a fixed
 * order the first contender was measured slower in every S2 run, whatever it was: leases on first
 * gave on/off 0.82× and 0.86× (medians), leases off first gave 1.12× on the same build
 * (docs/decisions/lease-cost-on-uniform-keys.md). Turning the order (round {@code r} starting with
 * contender {@code r mod n}) did not end it: contender {@code i} still followed {@code i - 1} in
 * every round, and two identical Sluice client rows in S2 measured 0.955× of each other. Keys of
 * each contender's own ({@link ContenderKeys}) and a judged lead-in before each round ({@link
 * RoundRunner#measuredRound}) took that to 0.99× once, but 0.79× and 0.89× in two later runs, the
 * row that follows Redis the slower every time. With this order the same pair measured 1.00× and
 * 0.90× (docs/decisions/harness-fairness.md).
 */
final class Measurement {
  private Measurement() {}

  static void run(
      BenchContext context,
      ScenarioResult s,
      Workload load,
      BenchRule rule,
      List<ContenderSpec> specs) {
    long startNanos = System.nanoTime();
    System.out.println("== " + s.id() + " " + s.title());
    List<RoundRunner> live = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (ContenderSpec spec : specs) {
      try {
        live.add(spec.factory().start(context, rule));
        reasons.add(null);
      } catch (Exception | LinkageError e) {
        live.add(null);
        reasons.add(reason(e));
      }
    }
    try {
      List<List<RoundResult>> rounds = new ArrayList<>();
      for (int i = 0; i < live.size(); i++) {
        rounds.add(new ArrayList<>());
        if (live.get(i) != null) {
          try {
            live.get(i).warmUp(load);
          } catch (Exception | LinkageError e) {
            reasons.set(i, "warm-up failed: " + reason(e));
          }
        }
      }
      for (int r = 0; r < load.rounds(); r++) {
        for (int i : orderOfRound(r, live.size())) {
          if (live.get(i) != null && reasons.get(i) == null) {
            try {
              rounds.get(i).add(live.get(i).measuredRound(load));
            } catch (Exception | LinkageError e) {
              reasons.set(i, "round " + (r + 1) + " failed: " + reason(e));
            }
          }
        }
      }
      for (int i = 0; i < specs.size(); i++) {
        ContenderSpec spec = specs.get(i);
        ContenderRun run =
            reasons.get(i) != null
                ? ContenderRun.notRun(spec.name(), spec.group(), reasons.get(i))
                : ContenderRun.measured(spec.name(), spec.group(), rounds.get(i));
        if (run.ran() && run.errorShare() > 0.5) {
          run =
              ContenderRun.notRun(
                  run.name(), run.group(), "most calls failed: " + run.firstError());
        }
        s.add(run);
        System.out.println("   " + run);
      }
      System.out.printf(
          Locale.ROOT, "   (%s took %.1f s)%n", s.id(), (System.nanoTime() - startNanos) / 1e9);
    } finally {
      for (int i = 0; i < live.size(); i++) {
        if (live.get(i) != null) {
          try {
            live.get(i).close();
          } catch (RuntimeException e) {
            System.err.println("closing " + specs.get(i).name() + ": " + e);
          }
        }
      }
    }
  }

  /**
   * The order in which round {@code r} runs {@code n} contenders: row {@code r mod n} of a Williams
   * Latin square. Its first row is {@code 0, 1, n-1, 2, n-2, ...}, and row {@code r} adds {@code r}
   * to each entry (mod n). Over any {@code n} rounds each contender runs once in each place, and
   * for an even {@code n} each contender follows each other one exactly once; for an odd {@code n}
   * every other round is reversed, which balances the same over {@code 2n} rounds.
   */
  static List<Integer> orderOfRound(int r, int n) {
    List<Integer> order = new ArrayList<>(n);
    int low = 1;
    int high = n - 1;
    for (int k = 0; k < n; k++) {
      int first = k == 0 ? 0 : k % 2 == 1 ? low++ : high--;
      order.add((first + r) % n);
    }
    if (n % 2 == 1 && r % 2 == 1) {
      Collections.reverse(order);
    }
    return order;
  }

  static String reason(Throwable e) {
    String message = e.getMessage();
    if (e instanceof NoClassDefFoundError) {
      return "class " + message + " missing (that piece has not landed)";
    }
    return message == null ? e.getClass().getSimpleName() : message.replace('\n', ' ');
  }
}
