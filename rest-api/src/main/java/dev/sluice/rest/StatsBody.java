package dev.sluice.rest;

import dev.sluice.core.stats.ClusterStats;
import java.util.List;

/**
 * {@code GET /v1/stats}: the node answering, every rule with where it came from, and the merged
 * stats of the deployment.
 */
public record StatsBody(NodeBody node, List<RuleInfo> rules, ClusterStats stats) {}
