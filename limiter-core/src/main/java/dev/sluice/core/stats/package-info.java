/**
 * What a node's console shows, kept on the node in bounded memory: per-rule decision rates for the
 * last 15 minutes at one-second resolution ({@link dev.sluice.core.stats.RuleTally} into a {@link
 * dev.sluice.core.stats.SecondRing}), decision latency, the keys being denied now ({@link
 * dev.sluice.core.stats.SpaceSaving}, a heavy-hitters sketch; {@link
 * dev.sluice.core.stats.KeySummary} merges sketches across members) and what each front end served
 * ({@link dev.sluice.core.stats.FrontEnds}).
 *
 * <p>Start at {@link dev.sluice.core.stats.NodeStats}: the one object a node records into (from
 * {@link dev.sluice.core.metrics.DecisionMetrics}, at the cost of a few striped counter increments
 * per decision) and snapshots from. Merging snapshots of several nodes is {@link
 * dev.sluice.core.stats.ClusterStats#merge}. Nothing here knows Hazelcast: the grid gathers the
 * members' snapshots in {@code dev.sluice.core.grid}.
 */
@NullMarked
package dev.sluice.core.stats;

import org.jspecify.annotations.NullMarked;
