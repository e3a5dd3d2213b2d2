package dev.sluice.rest;

import dev.sluice.core.Rule;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.core.stats.StatsView;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the console ({@code GET /}) and its stats routes read beyond the limiter: the node's own
 * stats (where the REST front end reports what it serves), the view of the whole deployment, and
 * what only the node knows about each rule.
 *
 * @param node the node's name in the console
 * @param mode {@code member}, {@code client} or {@code local} (a limiter without a grid)
 * @param stats this node's stats
 * @param view the stats of the whole deployment (this node's alone without a grid)
 * @param origin where a rule came from: {@code rules_file}, {@code rules_file_then_api}, {@code
 *     api} or {@code bundled_examples} (docs/rest-api.md, "Stats")
 * @param failurePolicy the failure policy this node applies to a rule ({@code fail-open}, {@code
 *     fail-closed}), or null where none applies (a member decides on its own partitions)
 */
public record Console(
    String node,
    String mode,
    NodeStats stats,
    StatsView view,
    Function<Rule, String> origin,
    Function<String, @Nullable String> failurePolicy) {

  public Console {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(stats, "stats");
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(failurePolicy, "failurePolicy");
  }

  /** A console of {@code stats} alone, for a limiter without a grid: every rule from the API. */
  public static Console local(NodeStats stats) {
    return new Console(stats.node(), "local", stats, StatsView.of(stats), rule -> "api", r -> null);
  }
}
