package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The console's view of a whole deployment: the snapshots of every node that answered, merged.
 * Series are summed second by second (they are aligned on epoch seconds), latency as {@link
 * LatencySeries#merge} says, totals summed, front ends merged by name.
 *
 * @param untilSecond the last second of the series, in epoch seconds
 * @param seconds the length of every series
 * @param nodes the nodes whose snapshots are merged here
 * @param rates per rule, sorted by rule
 * @param latency decision latency per second
 * @param leases the leases held by the nodes, summed
 * @param frontEnds per front end, sorted by name
 * @param grid the grid's members and clients
 * @param untrackedDenials denials the nodes' sketches of limited keys did not take in (a full
 *     buffer, too many rules denying at once): the keys' bounds hold for the denials taken in
 */
public record ClusterStats(
    long untilSecond,
    int seconds,
    List<String> nodes,
    List<RuleRates> rates,
    LatencySeries latency,
    LeaseTotals leases,
    List<FrontEndTotals> frontEnds,
    GridView grid,
    long untrackedDenials) {

  public ClusterStats {
    nodes = List.copyOf(nodes);
    rates = List.copyOf(rates);
    frontEnds = List.copyOf(frontEnds);
  }

  /** The nodes' snapshots (all for the same seconds) as one view of {@code grid}. */
  public static ClusterStats merge(
      long untilSecond, int seconds, List<NodeSnapshot> snapshots, GridView grid) {
    List<String> nodes = new ArrayList<>();
    Map<String, int[][]> rates = new TreeMap<>();
    List<LatencySeries> latencies = new ArrayList<>();
    List<LeaseTotals> leases = new ArrayList<>();
    Map<String, List<FrontEndTotals>> frontEnds = new TreeMap<>();
    long untracked = 0;
    for (NodeSnapshot snapshot : snapshots) {
      if (snapshot.untilSecond() != untilSecond || snapshot.seconds() != seconds) {
        throw new IllegalArgumentException(
            "snapshot of "
                + snapshot.node()
                + " covers other seconds: "
                + snapshot.seconds()
                + " until "
                + snapshot.untilSecond());
      }
      nodes.add(snapshot.node());
      for (RuleRates rule : snapshot.rates()) {
        int[][] sums = rates.computeIfAbsent(rule.rule(), r -> new int[5][seconds]);
        add(sums[0], rule.allowed());
        add(sums[1], rule.denied());
        add(sums[2], rule.shadowDenied());
        weighMeans(sums[3], sums[4], rule.timed(), rule.meanMicros());
      }
      latencies.add(snapshot.latency());
      leases.add(snapshot.leases());
      for (FrontEndTotals frontEnd : snapshot.frontEnds()) {
        frontEnds.computeIfAbsent(frontEnd.name(), n -> new ArrayList<>()).add(frontEnd);
      }
      untracked += snapshot.untrackedDenials();
    }
    List<RuleRates> merged = new ArrayList<>();
    rates.forEach(
        (rule, sums) ->
            merged.add(new RuleRates(rule, sums[0], sums[1], sums[2], sums[3], sums[4])));
    List<FrontEndTotals> fronts = new ArrayList<>();
    frontEnds.forEach((name, list) -> fronts.add(FrontEndTotals.sum(name, list)));
    return new ClusterStats(
        untilSecond,
        seconds,
        nodes,
        merged,
        LatencySeries.merge(latencies, seconds),
        LeaseTotals.sum(leases),
        fronts,
        grid,
        untracked);
  }

  /** The nodes' limited keys, merged per rule ({@link KeySummary#merge}), sorted by rule. */
  public static Map<String, KeySummary> mergeKeys(List<NodeSnapshot> snapshots) {
    Map<String, List<KeySummary>> byRule = new TreeMap<>();
    for (NodeSnapshot snapshot : snapshots) {
      snapshot
          .limitedKeys()
          .forEach((rule, keys) -> byRule.computeIfAbsent(rule, r -> new ArrayList<>()).add(keys));
    }
    Map<String, KeySummary> merged = new LinkedHashMap<>();
    byRule.forEach((rule, summaries) -> merged.put(rule, KeySummary.merge(summaries)));
    return merged;
  }

  /**
   * Adds one node's timed checks and their mean into running ones, second by second: the merged
   * mean is the mean of all the checks, each node's weighted by its count (rounded up).
   */
  private static void weighMeans(int[] counts, int[] means, int[] nodeCounts, int[] nodeMeans) {
    for (int i = 0; i < counts.length; i++) {
      long count = (long) counts[i] + nodeCounts[i];
      if (count > 0) {
        long weighted = (long) counts[i] * means[i] + (long) nodeCounts[i] * nodeMeans[i];
        means[i] = (int) ((weighted + count - 1) / count);
      }
      counts[i] = (int) Math.min(Integer.MAX_VALUE, count);
    }
  }

  private static void add(int[] into, int[] values) {
    for (int i = 0; i < into.length; i++) {
      into[i] = (int) Math.min(Integer.MAX_VALUE, (long) into[i] + values[i]);
    }
  }
}
