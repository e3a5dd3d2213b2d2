package dev.sluice.core.stats;

import java.util.List;

/**
 * Decision latency per second, oldest first, for the decisions that went to a key's owner (answers
 * from a lease or a cached denial take nanoseconds and are not timed).
 *
 * @param decisions decisions timed in the second
 * @param meanMicros their mean latency, in microseconds rounded up
 * @param p99Micros their 99th percentile: never below the true value, at most 25 % above it (a
 *     merge of several nodes reports the largest node's, which bounds the merged one from above)
 * @param maxMicros the slowest one
 */
public record LatencySeries(int[] decisions, int[] meanMicros, int[] p99Micros, int[] maxMicros) {

  /** {@code seconds} seconds without a timed decision. */
  public static LatencySeries empty(int seconds) {
    return new LatencySeries(
        new int[seconds], new int[seconds], new int[seconds], new int[seconds]);
  }

  /**
   * Several nodes' series as one: decisions summed, means weighted by decisions, the largest p99
   * and maximum. (If every node's p99 is at most x, at least 99 % of each node's decisions took at
   * most x, so at least 99 % of all of them did: the merged p99 is at most the largest.)
   */
  static LatencySeries merge(List<LatencySeries> nodes, int seconds) {
    LatencySeries out = empty(seconds);
    for (int i = 0; i < seconds; i++) {
      long decisions = 0;
      long weighted = 0;
      for (LatencySeries node : nodes) {
        decisions += node.decisions[i];
        weighted += (long) node.decisions[i] * node.meanMicros[i];
        out.p99Micros[i] = Math.max(out.p99Micros[i], node.p99Micros[i]);
        out.maxMicros[i] = Math.max(out.maxMicros[i], node.maxMicros[i]);
      }
      out.decisions[i] = (int) Math.min(Integer.MAX_VALUE, decisions);
      out.meanMicros[i] = decisions == 0 ? 0 : (int) ((weighted + decisions - 1) / decisions);
    }
    return out;
  }
}
