package dev.sluice.core.pipeline;

import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A runtime: where key states are stored and how a {@link KeyCommand} reaches the place that
 * decides it. Everything else (validation, batching modes, release, metrics) is {@link
 * PipelineRateLimiter}'s, once for every runtime; every backend decides with {@link KeyDecision}
 * and resolves rules with a {@link RuleBook}.
 *
 * <p>Two exist: the local one ({@code dev.sluice.core.local}, a map in this JVM) and the grid
 * ({@code dev.sluice.core.grid}, an entry processor on the member that owns the key).
 */
public interface Backend {

  /** Decides one key's operations, in order, on the caller's thread where the runtime can. */
  KeyOutcome execute(KeyCommand command);

  /**
   * {@link #execute}, waiting at most {@code timeoutNanos} for the answer.
   *
   * @throws TimeoutException if none came in time; the command may still be decided
   */
  KeyOutcome execute(KeyCommand command, long timeoutNanos) throws TimeoutException;

  CompletableFuture<KeyOutcome> executeAsync(KeyCommand command);

  /**
   * Decides one command per key (no two for the same key); the answers are in the commands' order.
   */
  CompletableFuture<List<KeyOutcome>> executeAll(List<KeyCommand> commands);

  /** Forgets the state stored under {@code stateKey}; the future completes once it is gone. */
  CompletableFuture<Void> reset(String stateKey);

  /** The named rules this runtime decides with. */
  RuleStore rules();

  /**
   * The compiled policy of {@code ref} if this runtime can tell it here, without a remote read:
   * always for an inline policy; for a named rule where the rules are local (one JVM, a member)
   * and, with {@code fetched}, from the copies {@link #fetchRules} brought (a client). Null when it
   * cannot be told here; the step that decides refuses what is wrong then, atomically.
   *
   * @throws UnknownRuleException if the rule is known not to exist
   */
  @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched);

  /**
   * Brings the named rules here for {@link #policyOf policyOf(ref, true)}: what a batch needs to be
   * validated whole before anything is counted. Never blocks the caller: the future completes at
   * once where the rules are local or the copies fresh, otherwise when the reads land, and fails as
   * a read of a rule never seen here fails. A caller with a deadline waits for it within the
   * deadline.
   */
  CompletableFuture<Void> fetchRules(Set<String> names);

  /**
   * The secret this runtime seals receipts with, and checks them against ({@link ReceiptKey}): one
   * per local limiter; one per grid, the same on every member and client of the cluster, so that a
   * receipt is accepted wherever it is given back.
   *
   * @throws RuntimeException as {@link #execute} does while the runtime cannot reach its store (a
   *     client before it reached the cluster)
   */
  ReceiptKey receiptKey();

  /**
   * Whether {@code receipt} was sealed with this runtime's secret ({@link #receiptKey()}); a grid
   * reads its secret again first where the copy held here may be stale.
   */
  default boolean issuedHere(Receipt receipt) {
    return receipt.sealedWith(receiptKey());
  }

  /**
   * How many reservations on the keys this runtime stores were settled at their estimate (their ttl
   * passed uncommitted), counted where the key's state is stored, once each; null where this
   * runtime stores no state (a client).
   */
  default @Nullable LongSupplier reservationsSettledAtEstimate() {
    return null;
  }
}
