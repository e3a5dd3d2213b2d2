package dev.sluice.core.lease;

import dev.sluice.core.Policy;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Leasing's second place, next to batching: a command on its way to the owner asks for a lease
 * along with it when its key is hot here ({@link LeaseHolder#wanted}, which counts each request on
 * the key), and the lease that comes back is kept ({@link LeaseHolder#keep}). Below the
 * denied-until cache and the failure policy, so that a request answered there (a cached denial, a
 * failure policy's answer) neither counts as a request on the key nor parks an ask; leases are
 * answered from in front of every layer ({@link LeaseAnswers}).
 *
 * <p>An ask rides on the last operation of a command that a lease could have answered ({@link
 * KeyCommand#mayAnswerHere}); each of those counts as a request, and the largest ask goes. No ask
 * is made on a policy known here whose owner grants no lease ({@link CompiledPolicy#leases}: leases
 * off, a shadow or a concurrency policy), so that its keys cost the holder no demand to track;
 * where the policy is not known here, the owner keeps the promise and grants none.
 */
public final class LeaseAsks extends BackendDecorator {
  private final LeaseHolder holder;

  public LeaseAsks(Backend below, LeaseHolder holder) {
    super(below);
    this.holder = holder;
  }

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    Asking asking = asking(command);
    return asking.kept(below.execute(asking.sent, deadline));
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    Asking asking = asking(command);
    return below.executeAsync(asking.sent, deadline).thenApply(asking::kept);
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    List<Asking> askings = new ArrayList<>(commands.size());
    List<KeyCommand> sent = new ArrayList<>(commands.size());
    for (KeyCommand command : commands) {
      Asking asking = asking(command);
      askings.add(asking);
      sent.add(asking.sent);
    }
    return below
        .executeAll(sent, deadline)
        .thenApply(
            outcomes -> {
              for (int i = 0; i < outcomes.size(); i++) {
                askings.get(i).kept(outcomes.get(i));
              }
              return outcomes;
            });
  }

  /**
   * A command on its way to the owner, with the ask its last operation carries.
   *
   * @param askedAt the index of the operation that carries an ask, or -1
   * @param sentAtNanos the holder's clock just before {@code sent} went out (with an ask)
   */
  private record Asking(LeaseHolder holder, KeyCommand sent, int askedAt, long sentAtNanos) {
    /** Keeps the lease granted to the ask, if any; answers {@code outcome}. */
    KeyOutcome kept(KeyOutcome outcome) {
      if (askedAt >= 0) {
        holder.keep(
            sent.ref(), sent.stateKey(), sent.ops()[askedAt], outcome, askedAt, sentAtNanos);
      }
      return outcome;
    }
  }

  /** {@code command} with an ask for a lease on its last operation, where one pays here. */
  private Asking asking(KeyCommand command) {
    KeyOp[] ops = command.ops();
    int last = ops.length - 1;
    if (!anyAnswerable(command)) {
      return new Asking(holder, command, -1, 0);
    }
    CompiledPolicy policy;
    try {
      policy = below.policyOf(command.ref(), true);
    } catch (RuntimeException e) {
      return new Asking(holder, command, -1, 0); // the owner will answer for the rule
    }
    if (policy != null && !policy.leases()) {
      return new Asking(holder, command, -1, 0); // leases off, a shadow or a concurrency policy
    }
    long windowLeaseNanos = policy == null ? 0 : policy.algorithm().windowLeaseNanos();
    long shortLeaseNanos =
        policy == null ? Policy.MAX_LEASE_NANOS : policy.policy().maxLeaseNanos();
    LeaseAsk ask = LeaseAsk.NONE;
    for (int i = 0; i < ops.length; i++) {
      if (command.mayAnswerHere(i)) {
        LeaseAsk wanted =
            holder.wanted(command.stateKey(), ops[i].permits(), windowLeaseNanos, shortLeaseNanos);
        if (wanted.exceeds(ask)) {
          ask = wanted;
        }
      }
    }
    if (ask.permits() == 0 || !command.mayAnswerHere(last)) {
      return new Asking(holder, command, -1, 0);
    }
    KeyOp[] asked = ops.clone();
    asked[last] = ask.acquire(ops[last].permits());
    return new Asking(holder, command.withOps(asked), last, holder.now());
  }

  private static boolean anyAnswerable(KeyCommand command) {
    for (int i = 0; i < command.ops().length; i++) {
      if (command.mayAnswerHere(i)) {
        return true;
      }
    }
    return false;
  }
}
