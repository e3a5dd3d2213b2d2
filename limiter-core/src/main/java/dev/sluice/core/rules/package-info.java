/**
 * Named rules: the rules file of docs/configuration.md ({@link dev.sluice.core.rules.RulesFile})
 * and the in-memory {@link dev.sluice.core.RuleStore} a single JVM uses ({@link
 * dev.sluice.core.rules.InMemoryRuleStore}).
 *
 * <p>Start with {@link dev.sluice.core.rules.RulesFile}; {@link
 * dev.sluice.core.rules.RulesFileWatcher} keeps a running node in step with the file.
 */
@NullMarked
package dev.sluice.core.rules;

import org.jspecify.annotations.NullMarked;
