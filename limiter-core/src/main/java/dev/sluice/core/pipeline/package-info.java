/**
 * Where a check becomes a decision: the one {@link dev.sluice.core.RateLimiter} of every runtime.
 *
 * <p>Start here: {@link dev.sluice.core.pipeline.PipelineRateLimiter} turns a check into a {@code
 * KeyCommand}, groups a batch by key and gives an all-or-nothing batch its answer; {@link
 * dev.sluice.core.pipeline.BackendStack} builds the layers in front of a runtime's storage in one
 * order (lease answers, denied-until cache, failure policy, lease asks, batching). {@link
 * dev.sluice.core.pipeline.RuleBook} resolves a rule's name to its compiled policy.
 */
@NullMarked
package dev.sluice.core.pipeline;

import org.jspecify.annotations.NullMarked;
