package dev.sluice.core.stats;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the console reads: the stats of a whole deployment, merged, however they are gathered (one
 * node's own, or every member's through the grid).
 */
public interface StatsView {

  /** The last {@code seconds} seconds (1 to 900) of every series, and the totals. */
  ClusterStats stats(int seconds);

  /**
   * The keys denied in the last one to two minutes, per rule, merged across nodes ({@link
   * KeySummary#merge}); only {@code rule}'s when it is not null.
   */
  Map<String, KeySummary> limitedKeys(@Nullable String rule);

  /** This node's own stats alone, for a limiter without a grid. */
  static StatsView of(NodeStats stats) {
    return new StatsView() {
      @Override
      public ClusterStats stats(int seconds) {
        long until = NodeStats.lastClosedSecond(System.currentTimeMillis());
        return ClusterStats.merge(
            until, seconds, java.util.List.of(stats.snapshot(until, seconds, null)), GridView.NONE);
      }

      @Override
      public Map<String, KeySummary> limitedKeys(@Nullable String rule) {
        long until = NodeStats.lastClosedSecond(System.currentTimeMillis());
        return stats.snapshot(until, 0, rule == null ? "" : rule).limitedKeys();
      }
    };
  }
}
