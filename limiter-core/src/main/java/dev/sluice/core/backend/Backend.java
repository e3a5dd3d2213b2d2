package dev.sluice.core.backend;

import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOutcome;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The narrow seam under {@code PipelineRateLimiter}: a {@link KeyCommand} in, a {@link KeyOutcome}
 * out, with its {@link Deadline}. Everything a caller sees (validation, batching modes, release,
 * metrics) is the pipeline's, once for every runtime; everything under it is a {@code Backend}.
 *
 * <p>Two kinds implement it. A <em>storage</em> is where key states live and how a command reaches
 * the place that decides it, with {@link KeyDecision}: the local one ({@code
 * dev.sluice.core.local}, a map in this JVM) and the grid ({@code dev.sluice.core.grid}, an entry
 * processor on the member that owns the key). A <em>decorator</em> ({@link BackendDecorator}) is an
 * optimization in front of one: leasing, the denied-until cache, the failure policy, batching.
 * {@code BackendStack} builds them, in one order, for every runtime.
 */
public interface Backend {

  /**
   * Decides one key's operations, in order, on the caller's thread where the runtime can.
   *
   * @throws DeadlineExceededException if {@code deadline} passed first; the command may still be
   *     decided
   */
  KeyOutcome execute(KeyCommand command, Deadline deadline);

  /** {@link #execute}, answered when the answer comes; a layer that bounds it times it out. */
  CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline);

  /**
   * Decides one command per key (no two for the same key); the answers are in the commands' order.
   */
  CompletableFuture<List<KeyOutcome>> executeAll(List<KeyCommand> commands, Deadline deadline);

  /**
   * Forgets the state stored under {@code stateKey}, {@code ref}'s; the future completes once it is
   * gone, and fails with {@link UnknownRuleException} if {@code ref} names no rule (a typo must not
   * look like a reset; where the rules are elsewhere, knowing that takes a read).
   */
  CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline);

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
   * a read of a rule never seen here fails.
   */
  CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline);

  /** What {@link #rulesVersion()} answers where rule copies change unseen. */
  long UNVERSIONED = -1;

  /**
   * A number that moves whenever a rule copy {@link #policyOf} reads from changes here, so that
   * what was read from one holds until it moves (a lease to the end of the window checks its rule's
   * shape only then); {@link #UNVERSIONED} where the copies change unseen (a store the application
   * may change directly): then read them every time.
   */
  default long rulesVersion() {
    return UNVERSIONED;
  }

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
