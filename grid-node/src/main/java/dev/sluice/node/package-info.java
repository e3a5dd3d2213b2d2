/**
 * The Sluice grid node: {@code java -jar sluice-node.jar}.
 *
 * <p>Start with {@link dev.sluice.node.SluiceNode} (main class and lifecycle), then {@link
 * dev.sluice.node.NodeSettings} (every setting, from YAML and {@code SLUICE_*} variables). The
 * member's Hazelcast configuration is built in {@code MemberConfig}; the rules file is kept in step
 * with the cluster by {@code RulesFileWatcher}.
 */
@NullMarked
package dev.sluice.node;

import org.jspecify.annotations.NullMarked;
