/**
 * The Sluice grid node: {@code java -jar sluice-node.jar}.
 *
 * <p>Start with {@link dev.sluice.node.SluiceNode} (main class and lifecycle: a start sequence
 * whose parts push their closers onto one {@code CloseStack}), then {@link
 * dev.sluice.node.NodeSettings} (what a node is told) and {@link dev.sluice.node.Setting} (every
 * setting, from YAML and {@code SLUICE_*} variables, layered by {@link
 * dev.sluice.core.config.LayeredSettings}). The member's Hazelcast configuration is built in {@code
 * MemberConfig}; the rules file is kept in step with the cluster by {@code RulesFileWatcher}.
 */
@NullMarked
package dev.sluice.node;

import org.jspecify.annotations.NullMarked;
