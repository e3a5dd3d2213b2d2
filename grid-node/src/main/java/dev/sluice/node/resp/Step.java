package dev.sluice.node.resp;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a command turned into, for its connection to carry out in order ({@link ConnectionHandler}).
 */
sealed interface Step {
  /** Answered at once: connection commands, errors in the arguments, cluster and server facts. */
  record Now(Reply reply) implements Step {}

  /**
   * A check for the pipeline, decided together with the connection's other checks in a row (one
   * {@code tryAcquireAllAsync}, batched per owner); {@code answer} writes the decision the
   * command's way.
   */
  record Decide(Check check, Function<Decision, Reply> answer) implements Step {}

  /**
   * Work that must see every earlier command of the connection done (a release, a reset, a rule
   * change), started in its turn; it may run off the event loop, and answers when done.
   */
  record Later(Supplier<CompletionStage<Reply>> run) implements Step {}

  /** {@code QUIT}: answer OK, then close the connection. */
  record Quit() implements Step {}
}
