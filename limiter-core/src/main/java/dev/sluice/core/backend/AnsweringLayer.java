package dev.sluice.core.backend;

import dev.sluice.core.Decision;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A layer that answers some acquires itself (from a lease, from a cached denial) and sends the rest
 * of a command below: the command of the other operations goes on, and the whole outcome is put
 * back together in the operations' order when it answers.
 *
 * <p>Only operations a layer in front of the owner may answer are offered to {@link #answer}
 * ({@link KeyCommand#mayAnswerHere}). Leaving an answered operation out changes nothing for those
 * after it on the key: a lease's permits were counted at the owner when it granted them, and a
 * denial changes no state (policies that count denials are never answered from a cache).
 */
public abstract class AnsweringLayer extends BackendDecorator {

  protected AnsweringLayer(Backend below) {
    super(below);
  }

  /** The answer to operation {@code index} of {@code command} made here, or null: below decides. */
  protected abstract @Nullable Decision answer(KeyCommand command, int index);

  /** When a command goes below, for {@link #sent}: this layer's clock, if it needs one. */
  protected long sendingAtNanos() {
    return 0;
  }

  /** {@code command} went below at {@code sentAtNanos} and was answered {@code outcome}. */
  protected void sent(KeyCommand command, long sentAtNanos, KeyOutcome outcome) {}

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    if (command.ops().length == 1) {
      // One request on its own, the common case: nothing to split or put together.
      Decision answer = command.mayAnswerHere(0) ? answer(command, 0) : null;
      if (answer != null) {
        return KeyOutcome.of(answer);
      }
      long sentAt = sendingAtNanos();
      KeyOutcome outcome = below.execute(command, deadline);
      sent(command, sentAt, outcome);
      return outcome;
    }
    Part part = split(command);
    if (part.rest == null) {
      return part.outcome(null);
    }
    long sentAt = sendingAtNanos();
    KeyOutcome outcome = below.execute(part.rest, deadline);
    sent(part.rest, sentAt, outcome);
    return part.outcome(outcome);
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    Part part = split(command);
    if (part.rest == null) {
      return CompletableFuture.completedFuture(part.outcome(null));
    }
    long sentAt = sendingAtNanos();
    return below
        .executeAsync(part.rest, deadline)
        .thenApply(
            outcome -> {
              sent(part.rest, sentAt, outcome);
              return part.outcome(outcome);
            });
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    List<Part> parts = new ArrayList<>(commands.size());
    List<KeyCommand> rests = new ArrayList<>(commands.size());
    for (KeyCommand command : commands) {
      Part part = split(command);
      parts.add(part);
      if (part.rest != null) {
        rests.add(part.rest);
      }
    }
    long sentAt = sendingAtNanos();
    CompletableFuture<List<KeyOutcome>> answers =
        rests.isEmpty()
            ? CompletableFuture.completedFuture(List.of())
            : below.executeAll(rests, deadline);
    return answers.thenApply(
        outcomes -> {
          List<KeyOutcome> whole = new ArrayList<>(parts.size());
          int next = 0;
          for (Part part : parts) {
            KeyOutcome outcome = null;
            if (part.rest != null) {
              outcome = outcomes.get(next++);
              sent(part.rest, sentAt, outcome);
            }
            whole.add(part.outcome(outcome));
          }
          return whole;
        });
  }

  /** The operations of {@code command} answered here, and the command of the others. */
  private Part split(KeyCommand command) {
    KeyOp[] ops = command.ops();
    @Nullable Decision[] answers = null;
    int answered = 0;
    for (int i = 0; i < ops.length; i++) {
      Decision answer = command.mayAnswerHere(i) ? answer(command, i) : null;
      if (answer != null) {
        if (answers == null) {
          answers = new Decision[ops.length];
        }
        answers[i] = answer;
        answered++;
      }
    }
    if (answers == null || answered == ops.length) {
      return new Part(answers, answers == null ? command : null);
    }
    KeyOp[] left = new KeyOp[ops.length - answered];
    int next = 0;
    for (int i = 0; i < ops.length; i++) {
      if (answers[i] == null) {
        left[next++] = ops[i];
      }
    }
    return new Part(answers, command.withOps(left));
  }

  /**
   * A command split here: the answers made here (null when none), and the command of the other
   * operations (null when every one was answered).
   */
  private record Part(@Nullable Decision @Nullable [] answers, @Nullable KeyCommand rest) {
    /** The whole command's outcome: the answers made here, and {@code ofRest}'s for the others. */
    KeyOutcome outcome(@Nullable KeyOutcome ofRest) {
      if (answers == null) {
        return ofRest;
      }
      KeyOutcome whole =
          new KeyOutcome(answers.length, ofRest == null ? 0 : ofRest.decidedAtNanos());
      int next = 0;
      for (int i = 0; i < answers.length; i++) {
        if (answers[i] != null) {
          whole.setDecision(i, answers[i]);
        } else {
          whole.copy(i, ofRest, next++);
        }
      }
      return whole;
    }
  }
}
