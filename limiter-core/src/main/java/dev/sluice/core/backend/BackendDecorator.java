package dev.sluice.core.backend;

import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * An optimization in front of a {@link Backend}, as Bucket4j's optimizations wrap its command
 * executor: it forwards everything to the backend below, and overrides what it answers or changes.
 * {@code BackendStack} builds the decorators, in one order.
 */
public abstract class BackendDecorator implements Backend {
  protected final Backend below;

  protected BackendDecorator(Backend below) {
    this.below = Objects.requireNonNull(below, "below");
  }

  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    return below.execute(command, deadline);
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    return below.executeAsync(command, deadline);
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    return below.executeAll(commands, deadline);
  }

  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    return below.reset(ref, stateKey, deadline);
  }

  @Override
  public RuleStore rules() {
    return below.rules();
  }

  @Override
  public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
    return below.policyOf(ref, fetched);
  }

  @Override
  public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
    return below.fetchRules(names, deadline);
  }

  @Override
  public long rulesVersion() {
    return below.rulesVersion();
  }

  @Override
  public ReceiptKey receiptKey() {
    return below.receiptKey();
  }

  @Override
  public boolean issuedHere(Receipt receipt) {
    return below.issuedHere(receipt);
  }
}
