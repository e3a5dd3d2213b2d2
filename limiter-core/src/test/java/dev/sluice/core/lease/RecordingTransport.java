package dev.sluice.core.lease;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.local.LocalRateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A holder's transport for tests whose owner answers are made by hand: the local storage (which
 * knows no rule here, so every state shape reads 0), but renewals and returns are only recorded. A
 * renewal's answer never comes (the test grants the next lease itself); a return is taken.
 */
final class RecordingTransport extends BackendDecorator {
  /** The renewals sent, in order. */
  final List<KeyCommand> renewals = new ArrayList<>();

  /** The returns sent, in order. */
  final List<KeyCommand> returns = new ArrayList<>();

  RecordingTransport(ManualTimeSource clock) {
    super(LocalRateLimiter.builder().timeSource(clock).build().stack().storage());
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    renewals.add(command);
    return new CompletableFuture<>();
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    returns.addAll(commands);
    return CompletableFuture.completedFuture(List.of());
  }
}
