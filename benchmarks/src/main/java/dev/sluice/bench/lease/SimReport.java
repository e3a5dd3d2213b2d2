package dev.sluice.bench.lease;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The simulator's tables, in Markdown: one per trace, a row per policy, and a summary over the
 * traces. The columns:
 *
 * <ul>
 *   <li><b>at owner</b>: the share of requests decided at the key's owner (a round trip each);
 *   <li><b>commands</b>: commands the owner decided per request, renewals and returns included;
 *   <li><b>returns</b>: commands that gave unused permits back;
 *   <li><b>stricter</b>: the share of requests denied that the owner alone, deciding every request
 *       with no lease, would have admitted (the cost of a lease: permits parked at another holder);
 *   <li><b>admitted</b>: permits admitted, beside the owner alone's ({@code −n}: n fewer);
 *   <li><b>over</b>: admissions beyond the rule's bound ({@link AdmissionJudge}); must be 0;
 *   <li><b>leases</b>: leases granted, short / to the end of the window / paced; <b>peak
 *       leases</b>, <b>peak keys</b> and <b>peak KiB</b>: the most leases one holder held, keys its
 *       policy tracked and their estimated memory;
 *   <li><b>cost</b>: the mean modelled time to an answer, in microseconds.
 * </ul>
 */
final class SimReport {
  private SimReport() {}

  static final String HEADER =
      "| policy | at owner | commands | returns | stricter | admitted | over | leases s/w/p | peak leases |"
          + " peak keys | peak KiB | cost µs |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

  static String table(SimTrace trace, List<Simulation.Result> results) {
    StringBuilder text = new StringBuilder();
    long requests = results.isEmpty() ? 0 : results.get(0).requests();
    text.append(
        String.format(
            Locale.ROOT,
            "#### %s: %s, %d holder%s, %,d requests%n%n%s.%n%n",
            trace.name(),
            trace.rule(),
            trace.holders(),
            trace.holders() == 1 ? "" : "s",
            requests,
            trace.description()));
    text.append(HEADER);
    for (Simulation.Result r : results) {
      text.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f %% | %.3f | %,d | %.3f %% | %,d (%s) | %d | %s | %,d | %,d | %,.1f | %.1f"
                  + " |%n",
              r.policy(),
              100 * r.ownerShare(),
              r.commandsPerRequest(),
              r.returns(),
              100 * r.stricterShare(),
              r.admitted(),
              signed(r.admitted() - r.admittedAlone()),
              r.overAdmitted(),
              r.shortLeases() + "/" + r.windowLeases() + "/" + r.pacedLeases(),
              r.peakLeasesPerHolder(),
              r.peakKeysPerHolder(),
              r.peakBytesPerHolder() / 1024.0,
              r.meanCostNanos() / 1_000));
    }
    return text.toString();
  }

  /**
   * Per policy over all traces: the mean share at the owner and of commands (each trace weighs the
   * same), the worst stricter share, every over-admission, the most memory and the mean cost.
   */
  static String summary(List<Simulation.Result> results) {
    record Sum(
        int traces,
        double ownerShare,
        double commands,
        double worstStricter,
        long over,
        long peakBytes,
        double cost) {
      Sum plus(Simulation.Result r) {
        return new Sum(
            traces + 1,
            ownerShare + r.ownerShare(),
            commands + r.commandsPerRequest(),
            Math.max(worstStricter, r.stricterShare()),
            over + r.overAdmitted(),
            Math.max(peakBytes, r.peakBytesPerHolder()),
            cost + r.meanCostNanos());
      }
    }
    Map<String, Sum> sums = new LinkedHashMap<>();
    for (Simulation.Result r : results) {
      sums.merge(
          r.policy(),
          new Sum(0, 0, 0, 0, 0, 0, 0).plus(r),
          (a, b) ->
              new Sum(
                  a.traces + b.traces,
                  a.ownerShare + b.ownerShare,
                  a.commands + b.commands,
                  Math.max(a.worstStricter, b.worstStricter),
                  a.over + b.over,
                  Math.max(a.peakBytes, b.peakBytes),
                  a.cost + b.cost));
    }
    StringBuilder text = new StringBuilder();
    text.append("#### Over all traces\n\n");
    text.append(
        "| policy | traces | mean at owner | mean commands | worst stricter | over | peak KiB |"
            + " mean cost µs |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    sums.forEach(
        (policy, s) ->
            text.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %d | %.2f %% | %.3f | %.3f %% | %d | %,.1f | %.1f |%n",
                    policy,
                    s.traces,
                    100 * s.ownerShare / s.traces,
                    s.commands / s.traces,
                    100 * s.worstStricter,
                    s.over,
                    s.peakBytes / 1024.0,
                    s.cost / s.traces / 1_000)));
    return text.toString();
  }

  private static String signed(long difference) {
    return difference == 0 ? "=" : String.format(Locale.ROOT, "%+,d", difference);
  }
}
