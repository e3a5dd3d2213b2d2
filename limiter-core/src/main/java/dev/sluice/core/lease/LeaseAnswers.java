package dev.sluice.core.lease;

import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.backend.AnsweringLayer;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Leasing's first place, in front of every other layer (docs/client.md, "Leases"): an acquire is
 * answered from a live lease of its key, and nothing below runs for it; a reset drops the key's
 * lease. What goes on asks for the next lease further down ({@link LeaseAsks}), so that only a
 * request that reaches the owner counts as one and carries an ask.
 *
 * <h2>An answer from a lease</h2>
 *
 * A command of one acquire is looked up once in the holder's map and, if a live lease of its key
 * has the permits, answered there: from the caller, {@code PipelineRateLimiter.tryAcquire}, this
 * class's {@link #execute} and {@link LeaseHolder#answer} are the only frames, and nothing else is
 * read. No policy is looked up first: a lease holds no more than its policy's capacity, so a
 * request it answers is never one the owner would refuse as too big, and a policy that allows no
 * lease (a concurrency rule, {@code leases: off}) has none here to answer from. It answers while
 * the grid is unreachable too: its permits were admitted by the owner when it granted them.
 * Acquires that wait are not answered (the owner books a wait at a future instant, which a lease
 * cannot), nor those of an all-or-nothing batch, which gives back what it took with the exact undo
 * of each admission at the owner ({@link KeyCommand#mayAnswerHere}).
 */
public final class LeaseAnswers extends AnsweringLayer {
  private final LeaseHolder holder;

  public LeaseAnswers(Backend below, LeaseHolder holder) {
    super(below);
    this.holder = holder;
  }

  /** One request on its own: the lease's answer, or below's; a batch's command in part. */
  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    if (command.ops().length != 1) {
      return super.execute(command, deadline);
    }
    if (command.mayAnswerHere(0)) {
      Decision leased =
          holder.answer(command.ref(), command.stateKey(), command.ops()[0].permits());
      if (leased != null) {
        return KeyOutcome.of(leased);
      }
    }
    return below.execute(command, deadline);
  }

  @Override
  protected @Nullable Decision answer(KeyCommand command, int index) {
    return holder.answer(command.ref(), command.stateKey(), command.ops()[index].permits());
  }

  /**
   * Drops this holder's lease of the key before the reset is sent: the reset forgets the count the
   * lease's permits are in, and an answer from them afterwards would admit them once more.
   */
  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    holder.forget(stateKey);
    return below.reset(ref, stateKey, deadline);
  }
}
