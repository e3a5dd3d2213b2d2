/**
 * The decision itself: what the owner of a key runs, the same on every runtime (a grid member's
 * entry processor, the local runtime, the lease simulator).
 *
 * <p>Start here: {@link dev.sluice.core.decision.KeyDecision} takes a key's {@link
 * dev.sluice.core.decision.StoredState}, the owner's {@code now} and a {@link
 * dev.sluice.core.decision.KeyCommand} (one or more {@link dev.sluice.core.decision.KeyOp}s) and
 * answers a {@link dev.sluice.core.decision.KeyOutcome}; {@link
 * dev.sluice.core.decision.CompiledPolicy} is a policy made ready to decide. What a holder asks for
 * a lease travels in the command ({@link dev.sluice.core.decision.LeaseAsk}), and the owner grants
 * it here. Nothing here knows who called or how the command arrived.
 */
@NullMarked
package dev.sluice.core.decision;

import org.jspecify.annotations.NullMarked;
