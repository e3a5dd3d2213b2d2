package dev.sluice.core.pipeline;

import static dev.sluice.core.backend.Futures.await;

import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReleaseProof;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationId;
import dev.sluice.core.RuleStore;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.AdmissionReceipts;
import dev.sluice.core.backend.AnswerExecutor;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.spec.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimiter} of every runtime, over its {@link Backend}: the one place where a check
 * becomes a {@link KeyCommand}, where a batch is grouped by key, where an all-or-nothing batch
 * gives back what it took, and where a release, a peek and a reset are made. A runtime adds only
 * storage and transport ({@code LocalRateLimiter}, {@code GridRateLimiter}).
 *
 * <h2>One check, step by step</h2>
 *
 * <ol>
 *   <li>The {@link Check} was validated when it was built (rule name, key, a cost not below 0).
 *   <li>The check becomes one {@link KeyOp} on its key's {@link KeyCommand}, sent to the head of
 *       the runtime's {@link BackendStack}. A layer may answer it there (a lease, a cached denial);
 *       otherwise the storage runs {@link KeyDecision} where the key's state lives, and the answer
 *       is that op's result. A cost above the policy's capacity is refused before anything is sent
 *       where the runtime knows the policy (a member), otherwise by the deciding step.
 * </ol>
 *
 * <h2>Batches</h2>
 *
 * Checks are grouped by state key, keeping their order, so each key is one command decided in one
 * atomic step; the backend sends the commands (per owner, in parallel, on the grid). Before
 * anything is sent every check's policy is resolved where it can be (on a client that means reading
 * rules it has not seen), so that a batch with an unknown rule or an impossible cost fails whole
 * with nothing counted.
 *
 * <p>{@link BatchMode#ALL}: when a check is denied, each admitted check is given back with the
 * exact undo of its admission ({@link KeyOp#releaseAdmittedAt}, at the instant its step ran), so
 * the batch costs nothing. Between the admission and the release the permits are taken, and another
 * caller may be denied for them: the batch is atomic in what it counts, not in what others observe
 * meanwhile.
 *
 * <h2>What is under it</h2>
 *
 * A {@link BackendStack}: the runtime's storage, and in front of it the layers that answer or carry
 * commands (leasing, the denied-until cache, the failure policy, batching), built in one place in
 * one order for every runtime. A check goes to the stack's head as one command; which layer answers
 * it is theirs to say, and the {@link Decision} says who did ({@link Decision#decidedBy()}).
 *
 * <h2>Receipts</h2>
 *
 * Every admission carries its receipt, the proof its permits may be given back with ({@link
 * AdmissionReceipts}): the owner's answers get theirs here, where the check is at hand; a lease's
 * answer gets its own from the lease holder, with the lease's grant instant and lifetime, whose
 * exact undo is the lease's return. A failure policy's fail-open answer took nothing at the owner
 * and carries none; a denial carries none; nor does an admission whose outcome says it cannot be
 * given back here ({@link KeyOutcome#noReceipt}: a global rule's in a region).
 *
 * <h2>Metrics</h2>
 *
 * With a {@link DecisionRecorder} (the metrics of docs/rest-api.md), every answer the caller gets
 * is recorded here, once: the stack's layers record nothing of the kind.
 */
public class PipelineRateLimiter implements RateLimiter {
  private final BackendStack stack;
  private final Backend backend;
  private final AdmissionReceipts receipts;
  private final @Nullable DecisionRecorder recorder;

  /** The pipeline over {@code stack}'s head, recording nothing. */
  protected PipelineRateLimiter(BackendStack stack) {
    this(stack, null);
  }

  /**
   * @param recorder told every answer the caller gets; null: none
   */
  protected PipelineRateLimiter(BackendStack stack, @Nullable DecisionRecorder recorder) {
    this.stack = Objects.requireNonNull(stack, "stack");
    this.backend = stack.head();
    this.receipts = stack.receipts();
    this.recorder = recorder;
  }

  /** The layers and the storage under this limiter. */
  public BackendStack stack() {
    return stack;
  }

  /** Who records this limiter's decisions, or null. */
  public @Nullable DecisionRecorder recorder() {
    return recorder;
  }

  /**
   * A limiter over the same stack (the same storage and leases) that tells {@code recorder} every
   * answer the caller gets.
   */
  public PipelineRateLimiter recordingInto(DecisionRecorder recorder) {
    return new PipelineRateLimiter(stack, Objects.requireNonNull(recorder, "recorder"));
  }

  /** {@link Backend#reservationsSettledAtEstimate()} of this limiter's storage. */
  public @Nullable LongSupplier reservationsSettledAtEstimate() {
    return stack.storage().reservationsSettledAtEstimate();
  }

  /** What this limiter's leases did, or null if it does not ask for leases. */
  public LeaseHolder.@Nullable Statistics leaseStatistics() {
    return stack.leaseStatistics();
  }

  /**
   * Gives every lease back to its owner and stops asking for new ones: a runtime calls it when it
   * closes, while its transport still works.
   */
  protected void closeLeases() {
    stack.close();
  }

  @Override
  public Decision tryAcquire(Check check) {
    KeyCommand command = command(Objects.requireNonNull(check, "check"), acquireOp(check));
    long start = startNanos();
    Decision decision = answer(check, backend.execute(command, Deadline.NONE));
    if (recorder != null) {
      recorder.decided(check, decision, start);
    }
    return decision;
  }

  /**
   * {@inheritDoc} A request that is wrong in itself or a closed limiter throws at once, as the
   * synchronous call would, where the runtime can tell at once; what the deciding step refuses
   * fails the returned future.
   */
  @Override
  public CompletableFuture<Decision> tryAcquireAsync(Check check) {
    KeyCommand command = command(Objects.requireNonNull(check, "check"), acquireOp(check));
    long start = startNanos();
    return recorded(
        backend.executeAsync(command, Deadline.NONE).thenApply(outcome -> answer(check, outcome)),
        decision -> recorder.decided(check, decision, start));
  }

  /** {@inheritDoc} The asynchronous batch ({@link #tryAcquireAllAsync(List)}), awaited. */
  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    long start = System.nanoTime();
    Deadline deadline = Deadline.startedAt(start);
    return deadline.await(tryAcquireAllAsync(checks, start, deadline));
  }

  /**
   * {@inheritDoc} A batch that is invalid in itself throws at once, with nothing counted; so does
   * one whose rules this runtime knows here (every rule, on a member). Where it must read rules
   * first (a client), it never waits for them on the caller's thread: the answer follows the read,
   * and a rule that turns out unknown fails the returned future, still with nothing counted.
   */
  @Override
  public CompletableFuture<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    long start = System.nanoTime();
    return tryAcquireAllAsync(checks, start, Deadline.startedAt(start));
  }

  /**
   * {@inheritDoc} The executor travels down the stack with the call ({@link Deadline#answeredOn}):
   * the batching lanes and the grid's batch delivery complete the answer there directly; an answer
   * that completes elsewhere (a lease's, a failure) takes one more task to get there.
   */
  @Override
  public CompletableFuture<List<Decision>> tryAcquireAllAsync(
      List<Check> checks, Executor answers) {
    AnswerExecutor on = new AnswerExecutor(answers);
    long start = System.nanoTime();
    return on.completing(
        tryAcquireAllAsync(checks, start, Deadline.startedAt(start).answeredOn(on)));
  }

  /** The one path of a batch of {@link BatchMode#EACH}, whichever way it was called. */
  private CompletableFuture<List<Decision>> tryAcquireAllAsync(
      List<Check> checks, long start, Deadline deadline) {
    CompletableFuture<Void> known = backend.fetchRules(ruleNames(checks), deadline);
    CompletableFuture<List<Decision>> answer =
        known.isDone() && !known.isCompletedExceptionally()
            ? decideInOrder(checks, deadline)
            : known.thenCompose(ignored -> decideInOrder(checks, deadline));
    return recorded(answer, decisions -> recorder.decidedAll(checks, decisions, start));
  }

  /**
   * Decides a batch whose rules are known here: grouped by key, one command per key, unless a key
   * comes back under another policy (see {@link #policyChangeAt}); then the batch is validated
   * whole and decided in parts, one after another, each part's keys under one policy each.
   */
  private CompletableFuture<List<Decision>> decideInOrder(List<Check> checks, Deadline deadline) {
    int change = policyChangeAt(checks);
    if (change < 0) {
      Grouped batch = group(checks, false);
      return execute(batch, deadline).thenApply(batch::decisions);
    }
    validate(checks);
    Grouped head = group(checks.subList(0, change), false);
    List<Check> tail = checks.subList(change, checks.size());
    return execute(head, deadline)
        .thenApply(head::decisions)
        .thenCompose(first -> decideInOrder(tail, deadline).thenApply(rest -> concat(first, rest)));
  }

  /**
   * The index of the first check of a batch that names a key an earlier check names under another
   * policy, or -1. Only an inline policy under a state name can do that ({@link
   * PolicyRef#inlineUnder}: one state whatever the parameters); every other state key names its
   * policy. Such a check must see the checks before it decided under their own policy, so it cannot
   * join their key's command.
   */
  static int policyChangeAt(List<Check> checks) {
    Map<String, PolicyRef> refs = null;
    for (int i = 0; i < checks.size(); i++) {
      Check check = checks.get(i);
      if (!check.ref().storesPolicyWithState()) {
        continue;
      }
      if (refs == null) {
        refs = new HashMap<>();
      }
      PolicyRef before = refs.putIfAbsent(check.stateKey(), check.ref());
      if (before != null && !before.equals(check.ref())) {
        return i;
      }
    }
    return -1;
  }

  private static List<Decision> concat(List<Decision> first, List<Decision> rest) {
    List<Decision> all = new ArrayList<>(first.size() + rest.size());
    all.addAll(first);
    all.addAll(rest);
    return all;
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    Objects.requireNonNull(mode, "mode");
    if (mode == BatchMode.EACH) {
      return BatchOutcome.each(tryAcquireAll(checks));
    }
    Check.requireNoWait(Check.requireAll(checks));
    long start = System.nanoTime();
    Deadline deadline = Deadline.startedAt(start);
    deadline.await(backend.fetchRules(ruleNames(checks), deadline));
    int change = policyChangeAt(checks);
    if (change >= 0) {
      throw new InvalidPolicyException(
          "checks[" + change + "]",
          "an all-or-nothing batch decides each key under one policy, and this check names an"
              + " earlier check's key under other parameters");
    }
    Grouped batch = group(checks, true);
    List<KeyOutcome> outcomes = deadline.await(execute(batch, deadline));
    List<Decision> decisions = batch.decisions(outcomes);
    int deniedBy = -1;
    for (int i = 0; i < decisions.size() && deniedBy < 0; i++) {
      if (!decisions.get(i).allowed()) {
        deniedBy = i;
      }
    }
    BatchOutcome outcome;
    if (deniedBy < 0) {
      outcome = new BatchOutcome(decisions, true, -1, Set.of());
    } else {
      Set<Integer> released = giveBack(batch, outcomes);
      List<Decision> answered = new ArrayList<>(decisions);
      for (int index : released) {
        answered.set(index, answered.get(index).withReceipt(null)); // undone: nothing to give back
      }
      outcome = new BatchOutcome(answered, false, deniedBy, released);
    }
    if (recorder != null) {
      recorder.decidedAll(checks, outcome.decisions(), start);
    }
    return outcome;
  }

  /**
   * Gives back every admitted check of a batch, each key's in one command, with the exact undo of
   * its admission. Returns the indexes of the checks given back.
   */
  private Set<Integer> giveBack(Grouped batch, List<KeyOutcome> outcomes) {
    Set<Integer> released = new HashSet<>();
    List<KeyCommand> releases = batch.releasesOfAdmitted(outcomes, released);
    if (!releases.isEmpty()) {
      await(backend.executeAll(releases, Deadline.NONE));
    }
    return released;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: a receipt is checked against this runtime's seal and sent as the exact undo of its
   * admission, which the key's owner makes once, within the window of the admission ({@link
   * KeyDecision}); a bare count is sent as a plain release when it is {@link
   * ReleaseProof.Bare#WITHOUT_PROOF} or the rule opens its releases, and is refused otherwise,
   * before anything is sent.
   */
  @Override
  public Decision release(Check check) {
    Deadline deadline = Deadline.startedAt(System.nanoTime());
    deadline.await(ruleOfBareCount(check, deadline));
    return backend.execute(releaseCommand(check), deadline).decision(0);
  }

  /**
   * The rule a bare count without proof names, brought here (a client reads it) to tell whether it
   * opens its releases; done at once for every other release.
   */
  private CompletableFuture<Void> ruleOfBareCount(Check check, Deadline deadline) {
    return Objects.requireNonNull(check, "check").proof() == ReleaseProof.Bare.NONE
            && check.ref() instanceof PolicyRef.Named named
        ? backend.fetchRules(Set.of(named.rule()), deadline)
        : CompletableFuture.completedFuture(null);
  }

  /**
   * The command of a release, once what it shows proves the permits are the caller's to give back
   * (a bare count's rule read by {@link #ruleOfBareCount}).
   *
   * @throws ReleaseException if it does not
   */
  private KeyCommand releaseCommand(Check check) {
    if (check.proof() instanceof Receipt receipt) {
      if (!receipt.release().equals(check.withMaxWait(Duration.ZERO))) {
        throw new InvalidPolicyException(
            "receipt", "names its own key and cost; give it alone, as the admission answered it");
      }
      return receipts.release(receipt);
    }
    precheck(check, check.proof() == ReleaseProof.Bare.NONE); // that rule was read: see above
    if (check.proof() == ReleaseProof.Bare.NONE && !opensReleases(check.ref())) {
      throw new ReleaseException(
          ReleaseException.Reason.PROOF_REQUIRED,
          "release: "
              + (check.ref() instanceof PolicyRef.Named named
                  ? "rule '" + named.rule() + "'"
                  : "an inline policy")
              + " gives permits back only to whoever shows they were admitted: the receipt the"
              + " check answered, a permitId or a reservationId. A bare count needs the admin"
              + " token (REST's bearer token, the Redis port's AUTH) or releaseWithoutProof (Java),"
              + " or a rule with 'release: open'");
    }
    return command(check, KeyOp.release(check.permits()));
  }

  /** Whether {@code ref} is a rule that takes a bare count from anyone ({@code release: open}). */
  private boolean opensReleases(PolicyRef ref) {
    if (!(ref instanceof PolicyRef.Named named)) {
      return false; // an inline policy never opens its releases (PolicyRef.Inline)
    }
    CompiledPolicy policy = backend.policyOf(ref, true);
    if (policy == null) {
      throw new UnknownRuleException(named.rule());
    }
    return policy.policy().release() == Policy.Release.OPEN;
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    Decision decision =
        backend.execute(releasePermitCommand(ref, key, permitId), Deadline.NONE).decision(0);
    if (recorder != null) {
      recorder.permitReleased(ref, key, permitId);
    }
    return decision;
  }

  private KeyCommand releasePermitCommand(PolicyRef ref, String key, long permitId) {
    Objects.requireNonNull(ref, "ref");
    StateKey.checkSubject(key);
    CompiledPolicy policy = backend.policyOf(ref, false);
    if (policy != null && !policy.policy().inFlight()) {
      throw new InvalidPolicyException(
          "permitId",
          "only a concurrency rule holds permit ids; release a count of permits instead");
    }
    return KeyCommand.of(ref, key, KeyOp.releasePermit(permitId));
  }

  @Override
  public Reservation reserve(Check check, Duration ttl) {
    KeyCommand command = reserveCommand(check, ttl);
    long start = startNanos();
    Reservation reservation = reservation(check, ttl, backend.execute(command, Deadline.NONE));
    if (recorder != null) {
      recorder.reserved(check, reservation, start);
    }
    return reservation;
  }

  private KeyCommand reserveCommand(Check check, Duration ttl) {
    precheck(check, false);
    ReservationId.checkTtl(ttl);
    if (check.waits()) {
      throw new InvalidPolicyException(
          "maxWait", "a reservation does not wait: reserve when the estimate fits, or retry");
    }
    if (check.permits() < 1) {
      throw new InvalidPolicyException(
          "cost", "a reservation's estimate is at least 1 permit, was " + check.permits());
    }
    return command(check, KeyOp.reserve(check.permits(), ttl.toNanos()));
  }

  /** The owner's answer as a reservation, its id naming the key, the owner's number and expiry. */
  private static Reservation reservation(Check check, Duration ttl, KeyOutcome outcome) {
    Decision decision = outcome.decision(0);
    if (!decision.allowed() || decision.permitId() == 0) {
      return new Reservation(null, decision);
    }
    long expiresAt = outcome.decidedAtNanos() + ttl.toNanos();
    String id =
        new ReservationId(check.ref(), check.key(), decision.permitId(), expiresAt).encode();
    return new Reservation(id, decision.withPermitId(0));
  }

  @Override
  public Decision commit(String reservationId, long cost) {
    Decision decision =
        backend.execute(commitCommand(reservationId, cost), Deadline.NONE).decision(0);
    if (recorder != null) {
      recorder.committed();
    }
    return decision;
  }

  private static KeyCommand commitCommand(String reservationId, long cost) {
    ReservationId id = ReservationId.parse(reservationId);
    if (cost < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + cost);
    }
    return KeyCommand.of(
        id.ref(), id.subject(), KeyOp.commit(id.number(), id.expiresAtNanos(), cost));
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return backend.execute(peekCommand(ref, key), Deadline.NONE).decision(0);
  }

  /** {@link #peek}, answered when the owner answers; a bad argument throws at once. */
  public CompletableFuture<Decision> peekAsync(PolicyRef ref, String key) {
    return backend
        .executeAsync(peekCommand(ref, key), Deadline.NONE)
        .thenApply(outcome -> outcome.decision(0));
  }

  private static KeyCommand peekCommand(PolicyRef ref, String key) {
    Objects.requireNonNull(ref, "ref");
    StateKey.checkSubject(key);
    return KeyCommand.of(ref, key, KeyOp.peek());
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    await(resetAsync(ref, key));
  }

  /**
   * {@link #reset}, done when the key is reset. A bad argument throws at once; an unknown rule
   * fails the future (where the rules are elsewhere, knowing that takes a read).
   */
  public CompletableFuture<Void> resetAsync(PolicyRef ref, String key) {
    Objects.requireNonNull(ref, "ref");
    StateKey.checkSubject(key);
    return backend.reset(ref, ref.stateKey(key), Deadline.startedAt(System.nanoTime()));
  }

  @Override
  public RuleStore rules() {
    return backend.rules();
  }

  /**
   * The rules a batch names, for {@link Backend#fetchRules}. Checks were validated when they were
   * built; a null among them is refused here, before anything is read.
   */
  private static Set<String> ruleNames(List<Check> checks) {
    Check.requireAll(checks);
    Set<String> names = null;
    for (Check check : checks) {
      if (check.ref() instanceof PolicyRef.Named named) {
        if (names == null) {
          names = new HashSet<>(4);
        }
        names.add(named.rule());
      }
    }
    return names == null ? Set.of() : names;
  }

  // ---------------------------------------------------------------- internals

  /**
   * The answer to a single acquire: the outcome's decision, with its receipt where the owner
   * admitted permits (a lease's answer comes with its own).
   */
  private Decision answer(Check check, KeyOutcome outcome) {
    return receipts.ofOwnerAnswer(check, outcome, 0);
  }

  private static KeyCommand command(Check check, KeyOp op) {
    return new KeyCommand(check.stateKey(), check.ref(), new KeyOp[] {op});
  }

  private static KeyOp acquireOp(Check check) {
    return KeyOp.acquire(check.permits(), check.maxWait().toNanos());
  }

  /** When a decision the recorder times started; nothing is read without a recorder. */
  private long startNanos() {
    return recorder == null ? 0 : System.nanoTime();
  }

  /** {@code answer}, told to the recorder when it comes (a failure is no decision). */
  private <T> CompletableFuture<T> recorded(CompletableFuture<T> answer, Consumer<T> record) {
    return recorder == null
        ? answer
        : answer.whenComplete(
            (value, failure) -> {
              if (value != null) {
                record.accept(value);
              }
            });
  }

  /**
   * Sends a batch's commands. A batch counts all of its checks or none: where the owner of one of
   * its keys answers an error that this runtime could not see before sending (a rule deleted since
   * its copy here was read, or never copied here), what the other keys admitted is given back with
   * the exact undo of each admission, and the batch fails with the error, naming its check ({@code
   * checks[1].rule}) as {@link #validate} does.
   */
  private CompletableFuture<List<KeyOutcome>> execute(Grouped batch, Deadline deadline) {
    if (batch.commands().isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    return backend
        .executeAll(batch.commands(), deadline)
        .thenCompose(
            outcomes -> {
              RuntimeException error = batch.firstError(outcomes);
              if (error == null) {
                return CompletableFuture.completedFuture(outcomes);
              }
              List<KeyCommand> undo = batch.releasesOfAdmitted(outcomes, new HashSet<>());
              CompletableFuture<List<KeyOutcome>> undone =
                  undo.isEmpty()
                      ? CompletableFuture.completedFuture(List.of())
                      : backend.executeAll(undo, Deadline.NONE);
              return undone.handle(
                  (ignored, undoFailed) -> {
                    throw error;
                  });
            });
  }

  /** Refuses a cost above the policy's capacity where the policy is known here. */
  private void precheck(Check check, boolean fetch) {
    Objects.requireNonNull(check, "check");
    CompiledPolicy policy = backend.policyOf(check.ref(), fetch);
    if (policy != null) {
      policy.checkCost(check.permits(), check.ref());
    }
  }

  /** One key's checks of a batch: their indexes and operations, in order. */
  private static final class Group {
    final String stateKey;
    final PolicyRef ref;
    final List<Integer> indexes = new ArrayList<>(2);
    final List<KeyOp> ops = new ArrayList<>(2);

    Group(String stateKey, PolicyRef ref) {
      this.stateKey = stateKey;
      this.ref = ref;
    }
  }

  /**
   * A batch grouped by key, and how to read the answers back in the checks' order, each admission
   * with its receipt.
   */
  private record Grouped(
      List<Check> checks,
      List<Group> groups,
      List<KeyCommand> commands,
      AdmissionReceipts receipts) {
    /**
     * The error the owner answered for the first check that has one, named by its check as {@link
     * #validate} names it; null if every check was decided.
     */
    @Nullable RuntimeException firstError(List<KeyOutcome> outcomes) {
      int first = -1;
      RuntimeException error = null;
      for (int g = 0; g < groups.size(); g++) {
        Group group = groups.get(g);
        KeyOutcome outcome = outcomes.get(g);
        for (int j = 0; j < group.indexes.size(); j++) {
          int index = group.indexes.get(j);
          if (outcome.decisionOrNull(j) == null && (first < 0 || index < first)) {
            first = index;
            try {
              outcome.decision(j);
            } catch (RuntimeException e) {
              error = namingCheck(index, e);
            }
          }
        }
      }
      return error;
    }

    /**
     * The exact undo of every check the owner admitted, or a lease held here admitted from permits
     * the owner counted for it, one command per key; adds their indexes to {@code released}. A
     * lease's admission is undone as its receipt would be (the owner frees the permits it counted
     * at the grant, once). A failure policy's fail-open answer took nothing at the owner, nor did
     * an error.
     */
    List<KeyCommand> releasesOfAdmitted(List<KeyOutcome> outcomes, Set<Integer> released) {
      List<KeyCommand> releases = new ArrayList<>();
      for (int g = 0; g < groups.size(); g++) {
        Group group = groups.get(g);
        KeyOutcome outcome = outcomes.get(g);
        List<KeyOp> ops = new ArrayList<>();
        for (int j = 0; j < group.indexes.size(); j++) {
          int index = group.indexes.get(j);
          Check check = checks.get(index);
          Decision decision = outcome.decisionOrNull(j);
          if (decision == null
              || !decision.allowed()
              || decision.shadowDenied()
              || check.permits() <= 0) {
            continue;
          }
          Receipt leased = decision.receipt();
          if (decision.decidedBy() == Decision.DecidedBy.LIMITER) {
            ops.add(KeyOp.releaseAdmittedAt(check.permits(), outcome.decidedAtNanos()));
            released.add(index);
          } else if (decision.decidedBy() == Decision.DecidedBy.LEASE && leased != null) {
            ops.add(
                KeyOp.releaseReceipt(
                    leased.permits(),
                    leased.admittedAtNanos(),
                    leased.leaseNanos(),
                    leased.number()));
            released.add(index);
          }
        }
        if (!ops.isEmpty()) {
          releases.add(new KeyCommand(group.stateKey, group.ref, ops.toArray(new KeyOp[0])));
        }
      }
      return releases;
    }

    List<Decision> decisions(List<KeyOutcome> outcomes) {
      Decision[] decisions = new Decision[checks.size()];
      for (int g = 0; g < groups.size(); g++) {
        Group group = groups.get(g);
        KeyOutcome outcome = outcomes.get(g);
        for (int j = 0; j < group.indexes.size(); j++) {
          int index = group.indexes.get(j);
          decisions[index] = receipts.ofOwnerAnswer(checks.get(index), outcome, j);
        }
      }
      return List.of(decisions);
    }
  }

  /**
   * Validates a batch whole, then groups it by key. With {@code ownerOnly} every command is decided
   * by its owner alone ({@link KeyCommand#ownerOnly}).
   */
  private Grouped group(List<Check> checks, boolean ownerOnly) {
    validate(checks);
    Map<String, Group> byKey = new LinkedHashMap<>();
    for (int i = 0; i < checks.size(); i++) {
      Check check = checks.get(i);
      Group group = byKey.computeIfAbsent(check.stateKey(), key -> new Group(key, check.ref()));
      group.indexes.add(i);
      group.ops.add(acquireOp(check));
    }
    List<Group> groups = new ArrayList<>(byKey.values());
    List<KeyCommand> commands = new ArrayList<>(groups.size());
    for (Group group : groups) {
      commands.add(
          new KeyCommand(group.stateKey, group.ref, group.ops.toArray(new KeyOp[0]), ownerOnly));
    }
    return new Grouped(checks, groups, commands, receipts);
  }

  /**
   * Refuses a batch, before anything is counted, if one of its checks is wrong for its policy where
   * the policy is known here (the rules it names were fetched); the error names the check it is
   * about ({@code checks[2].cost}), as a batch's caller needs to know which.
   */
  private void validate(List<Check> checks) {
    Check.requireAll(checks);
    for (int i = 0; i < checks.size(); i++) {
      try {
        precheck(checks.get(i), true);
      } catch (InvalidPolicyException | UnknownRuleException e) {
        throw namingCheck(i, e);
      }
    }
  }

  /**
   * {@code error} about check {@code index} of a batch, its field named for that check ({@code
   * checks[2].cost}, {@code checks[2].rule}); any other error as it is.
   */
  private static RuntimeException namingCheck(int index, RuntimeException error) {
    if (error instanceof InvalidPolicyException e) {
      return new InvalidPolicyException("checks[" + index + "]." + e.field(), LimitSpec.problem(e));
    }
    if (error instanceof UnknownRuleException e) {
      return new UnknownRuleException(e.rule(), "checks[" + index + "].rule");
    }
    return error;
  }
}
