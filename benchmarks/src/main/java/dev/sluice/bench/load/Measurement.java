package dev.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures the contenders of one scenario side by side: starts every one, warms each up, then
 * interleaves the measured rounds (round 1 of every contender, then round 2, ...) so that a noisy
 * neighbour on the shared machine disturbs all of them alike, and closes them all. A contender that
 * cannot start, or whose calls mostly fail, is reported as not run, with the reason.
 *
 * <p>Which contender goes first turns with each round: round {@code r} starts with contender {@code
 * r mod n}. With a fixed order the first contender was measured slower in every S2 run, whatever it
 * was: leases on first gave on/off 0.82× and 0.86× (medians), leases off first gave 1.12× on the
 * same build (docs/benchmarks.md, "Uniform keys after these changes"). Turning alone did not end
 * it: two identical Sluice client rows still measured 0.955× of each other, because rows on one
 * node shared their keys, so the row after another found them warm. Each contender now has keys of
 * its own ({@link ContenderKeys}) and each round a judged lead-in ({@link
 * RoundRunner#measuredRound}). The same two rows then measured 0.99× once, but 0.79× and 0.89× in
 * two later runs: in S2 the Sluice row that follows Redis is still measured slower, for a reason
 * not yet found (docs/benchmarks.md, "Rows on one node shared their keys").
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
        for (int k = 0; k < live.size(); k++) {
          int i = (r + k) % live.size();
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

  static String reason(Throwable e) {
    String message = e.getMessage();
    if (e instanceof NoClassDefFoundError) {
      return "class " + message + " missing (that piece has not landed)";
    }
    return message == null ? e.getClass().getSimpleName() : message.replace('\n', ' ');
  }
}
