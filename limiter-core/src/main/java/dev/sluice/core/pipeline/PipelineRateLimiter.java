package dev.sluice.core.pipeline;

import static dev.sluice.core.pipeline.Futures.await;
import static dev.sluice.core.pipeline.Futures.awaitWithin;

import dev.sluice.core.AnswersLocally;
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
import java.util.concurrent.TimeoutException;
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
 *   <li>If the runtime knows the policy here ({@link Backend#policyOf}), a cost above its capacity
 *       is refused before anything is sent; otherwise the deciding step refuses it.
 *   <li>The check becomes one {@link KeyOp} on its key's {@link KeyCommand}; the backend runs
 *       {@link KeyDecision} where the key's state lives, and the answer is that op's result.
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
 * <h2>Leases</h2>
 *
 * A runtime whose keys live elsewhere (the grid) can hold leases ({@link LeaseHolder}): an acquire
 * is first answered from a live lease of its key, without a network hop; an acquire that goes to
 * the owner on a hot key asks for a lease along with it. Single checks and batches of each-alone
 * checks use them; an all-or-nothing batch goes to the owners whole (its give-back is an exact undo
 * at the owner). Peeks, releases and resets always go to the owner; a reset also drops this
 * holder's lease of the key.
 */
public class PipelineRateLimiter implements RateLimiter, AnswersLocally {
  private final Backend backend;
  private final AdmissionReceipts receipts;
  private final @Nullable LeaseHolder leases;
  private final @Nullable LeaseReturns leaseReturns;

  protected PipelineRateLimiter(Backend backend) {
    this(backend, null);
  }

  /**
   * @param leaseClock this JVM's monotonic clock, to hold leases on ({@code System::nanoTime}, or
   *     the manual clock a test's grid decides on); null: never ask for a lease
   */
  protected PipelineRateLimiter(Backend backend, @Nullable LongSupplier leaseClock) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.receipts = new AdmissionReceipts(backend);
    this.leases =
        leaseClock == null
            ? null
            : new LeaseHolder(
                leaseClock,
                this::knownShape,
                this::renewLease,
                this::returnLateLeases,
                receipts::ofLeaseAnswer);
    this.leaseReturns = leases == null ? null : new LeaseReturns(leases, backend);
  }

  /**
   * The fingerprint of {@code ref}'s state shape as known here, without waiting for a read (a
   * client's rule cache); 0 where it cannot be told, and for a rule that is gone.
   */
  private int knownShape(PolicyRef ref) {
    try {
      CompiledPolicy policy = backend.policyOf(ref, true);
      return policy == null ? 0 : policy.fingerprint();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** {@link Backend#reservationsSettledAtEstimate()} of this limiter's runtime. */
  public @Nullable LongSupplier reservationsSettledAtEstimate() {
    return backend.reservationsSettledAtEstimate();
  }

  /** What this limiter's leases did, or null if it does not ask for leases. */
  public LeaseHolder.@Nullable Statistics leaseStatistics() {
    return leases == null ? null : leases.statistics();
  }

  /**
   * Gives every lease back to its owner and stops asking for new ones' returns: a runtime calls it
   * when it closes, while its transport still works.
   */
  protected void closeLeases() {
    if (leaseReturns != null) {
      leaseReturns.close();
    }
  }

  private void returnLateLeases() {
    LeaseReturns returns = leaseReturns;
    if (returns != null) {
      returns.returnLate();
    }
  }

  /** The runtime under this limiter. */
  protected Backend backend() {
    return backend;
  }

  @Override
  public Decision tryAcquire(Check check) {
    String stateKey = Objects.requireNonNull(check, "check").stateKey();
    Decision leased = fromLease(check, stateKey);
    if (leased != null) {
      return leased;
    }
    Acquiring acquiring = acquiring(check, stateKey);
    return acquiring.answer(backend.execute(acquiring.command()));
  }

  /**
   * {@inheritDoc} Here: the answer {@link #tryAcquire} would give from a live lease of the check's
   * key, taking its permits. For a decorator in front of this limiter whose own work only pays for
   * a round trip: the client's per-key coalescing makes concurrent calls on a hot key wait for each
   * other, which a lease answer, a compare-and-set here, does not need.
   */
  @Override
  public @Nullable Decision tryAcquireLocally(Check check) {
    String stateKey = check.stateKey();
    // Most keys hold no lease: answer that with one map lookup, and leave the checks to the call
    // that goes to the owner next, instead of making every call pay for them twice.
    if (leases == null || !leases.holds(stateKey)) {
      return null;
    }
    return fromLease(check, stateKey);
  }

  /**
   * {@inheritDoc} A request that is wrong in itself (a cost above a known capacity) or a closed
   * limiter throws at once, as the synchronous call would; what the deciding step refuses fails the
   * returned future.
   */
  @Override
  public CompletableFuture<Decision> tryAcquireAsync(Check check) {
    String stateKey = Objects.requireNonNull(check, "check").stateKey();
    Decision leased = fromLease(check, stateKey);
    if (leased != null) {
      return CompletableFuture.completedFuture(leased);
    }
    Acquiring acquiring = acquiring(check, stateKey);
    return backend.executeAsync(acquiring.command()).thenApply(acquiring::answer);
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return await(tryAcquireAllAsync(checks));
  }

  /**
   * {@inheritDoc} A batch that is invalid in itself throws at once, with nothing counted; so does
   * one whose rules this runtime knows here (every rule, on a member). Where it must read rules
   * first (a client), it never waits for them on the caller's thread: the answer follows the read,
   * and a rule that turns out unknown fails the returned future, still with nothing counted.
   */
  @Override
  public CompletableFuture<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    CompletableFuture<Void> known = backend.fetchRules(ruleNames(checks));
    if (known.isDone() && !known.isCompletedExceptionally()) {
      return decideInOrder(checks);
    }
    return known.thenCompose(ignored -> decideInOrder(checks));
  }

  /**
   * Decides a batch whose rules are known here: grouped by key, one command per key, unless a key
   * comes back under another policy (see {@link #policyChangeAt}); then the batch is validated
   * whole and decided in parts, one after another, each part's keys under one policy each.
   */
  private CompletableFuture<List<Decision>> decideInOrder(List<Check> checks) {
    int change = policyChangeAt(checks);
    if (change < 0) {
      Grouped batch = group(checks, true, true, true);
      return execute(batch).thenApply(batch::decisions);
    }
    validate(checks, true, true);
    Grouped head = group(checks.subList(0, change), true, true, true);
    List<Check> tail = checks.subList(change, checks.size());
    return execute(head)
        .thenApply(head::decisions)
        .thenCompose(first -> decideInOrder(tail).thenApply(rest -> concat(first, rest)));
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
    await(backend.fetchRules(ruleNames(checks)));
    int change = policyChangeAt(checks);
    if (change >= 0) {
      throw new InvalidPolicyException(
          "checks[" + change + "]",
          "an all-or-nothing batch decides each key under one policy, and this check names an"
              + " earlier check's key under other parameters");
    }
    Grouped batch = group(checks, true, true, false);
    List<KeyOutcome> outcomes = await(backend.executeAll(batch.commands()));
    List<Decision> decisions = batch.decisions(outcomes);
    int deniedBy = -1;
    for (int i = 0; i < decisions.size() && deniedBy < 0; i++) {
      if (!decisions.get(i).allowed()) {
        deniedBy = i;
      }
    }
    if (deniedBy < 0) {
      return new BatchOutcome(decisions, true, -1, Set.of());
    }
    Set<Integer> released = giveBack(batch, outcomes, decisions);
    List<Decision> answered = new ArrayList<>(decisions);
    for (int index : released) {
      answered.set(index, answered.get(index).withReceipt(null)); // undone: nothing to give back
    }
    return new BatchOutcome(answered, false, deniedBy, released);
  }

  /**
   * Gives back every admitted check of a batch, each key's in one command, with the exact undo of
   * its admission. Returns the indexes of the checks given back.
   */
  private Set<Integer> giveBack(Grouped batch, List<KeyOutcome> outcomes, List<Decision> decided) {
    List<KeyCommand> releases = new ArrayList<>();
    Set<Integer> released = new HashSet<>();
    for (int g = 0; g < batch.groups.size(); g++) {
      Group group = batch.groups.get(g);
      long admittedAt = outcomes.get(g).decidedAtNanos();
      List<KeyOp> ops = new ArrayList<>();
      for (int index : group.indexes) {
        Check check = batch.checks.get(index);
        Decision decision = decided.get(index);
        if (decision.allowed() && !decision.shadowDenied() && check.permits() > 0) {
          ops.add(KeyOp.releaseAdmittedAt(check.permits(), admittedAt));
          released.add(index);
        }
      }
      if (!ops.isEmpty()) {
        releases.add(new KeyCommand(group.stateKey, group.ref, ops.toArray(new KeyOp[0])));
      }
    }
    if (!releases.isEmpty()) {
      await(backend.executeAll(releases));
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
    await(ruleOfBareCount(check));
    return backend.execute(releaseCommand(check)).decision(0);
  }

  /**
   * {@link #release(Check)}, waiting at most {@code timeout} for the owner's answer.
   *
   * @throws TimeoutException if none came in time; the permits may still be given back
   */
  public Decision release(Check check, Duration timeout) throws TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    awaitWithin(ruleOfBareCount(check), timeout.toNanos());
    return backend.execute(releaseCommand(check), left(deadline)).decision(0);
  }

  /**
   * The rule a bare count without proof names, brought here (a client reads it) to tell whether it
   * opens its releases; done at once for every other release.
   */
  private CompletableFuture<Void> ruleOfBareCount(Check check) {
    return Objects.requireNonNull(check, "check").proof() == ReleaseProof.Bare.NONE
            && check.ref() instanceof PolicyRef.Named named
        ? backend.fetchRules(Set.of(named.rule()))
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
    return backend.execute(releasePermitCommand(ref, key, permitId)).decision(0);
  }

  /**
   * {@link #releasePermit}, waiting at most {@code timeout} for the owner's answer.
   *
   * @throws TimeoutException if none came in time; the permit may still be given back
   */
  public Decision releasePermit(PolicyRef ref, String key, long permitId, Duration timeout)
      throws TimeoutException {
    return backend.execute(releasePermitCommand(ref, key, permitId), timeout.toNanos()).decision(0);
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
    return reservation(check, ttl, backend.execute(command));
  }

  /**
   * {@link #reserve}, waiting at most {@code timeout} for the owner's answer.
   *
   * @throws TimeoutException if none came in time; the estimate may still be held, and is then
   *     settled at its ttl
   */
  public Reservation reserve(Check check, Duration ttl, Duration timeout) throws TimeoutException {
    KeyCommand command = reserveCommand(check, ttl);
    return reservation(check, ttl, backend.execute(command, timeout.toNanos()));
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
    return backend.execute(commitCommand(reservationId, cost)).decision(0);
  }

  /**
   * {@link #commit}, waiting at most {@code timeout} for the owner's answer.
   *
   * @throws TimeoutException if none came in time; the commit may still be made (a second one is
   *     then answered "committed already")
   */
  public Decision commit(String reservationId, long cost, Duration timeout)
      throws TimeoutException {
    return backend.execute(commitCommand(reservationId, cost), timeout.toNanos()).decision(0);
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
    return backend.execute(peekCommand(ref, key)).decision(0);
  }

  /**
   * {@link #peek}, waiting at most {@code timeout} for the owner's answer.
   *
   * @throws TimeoutException if none came in time
   */
  public Decision peek(PolicyRef ref, String key, Duration timeout) throws TimeoutException {
    return backend.execute(peekCommand(ref, key), timeout.toNanos()).decision(0);
  }

  /** {@link #peek}, answered when the owner answers; a bad argument throws at once. */
  public CompletableFuture<Decision> peekAsync(PolicyRef ref, String key) {
    return backend.executeAsync(peekCommand(ref, key)).thenApply(outcome -> outcome.decision(0));
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
   * {@link #reset}, waiting at most {@code timeout} for the rule's check and the owner.
   *
   * @throws TimeoutException if they did not answer in time; the key may still be reset
   */
  public void reset(PolicyRef ref, String key, Duration timeout) throws TimeoutException {
    awaitWithin(resetAsync(ref, key), timeout.toNanos());
  }

  /**
   * {@link #reset}, done when the key is reset. A bad argument throws at once; an unknown rule
   * fails the future (where the rules are elsewhere, knowing that takes a read).
   */
  public CompletableFuture<Void> resetAsync(PolicyRef ref, String key) {
    Objects.requireNonNull(ref, "ref");
    StateKey.checkSubject(key);
    String stateKey = ref.stateKey(key);
    return backend
        .fetchRules(ref instanceof PolicyRef.Named named ? Set.of(named.rule()) : Set.of())
        .thenCompose(
            known -> {
              // A typo must not look like a reset: an unknown rule is an error here too.
              if (backend.policyOf(ref, true) == null && ref instanceof PolicyRef.Named named) {
                throw new UnknownRuleException(named.rule());
              }
              if (leases != null) {
                leases.forget(stateKey);
              }
              return backend.reset(stateKey);
            });
  }

  @Override
  public RuleStore rules() {
    return backend.rules();
  }

  /**
   * Decides {@code check} like {@link #tryAcquire(Check)}, waiting at most {@code timeout} for the
   * answer: the path of a client that must give up after its call timeout. The caller's thread
   * waits on the invocation's own future.
   *
   * @throws TimeoutException if the answer did not come in time; the check may still be counted
   */
  public Decision tryAcquire(Check check, Duration timeout) throws TimeoutException {
    String stateKey = Objects.requireNonNull(check, "check").stateKey();
    Decision leased = fromLease(check, stateKey);
    if (leased != null) {
      return leased;
    }
    Acquiring acquiring = acquiring(check, stateKey);
    return acquiring.answer(backend.execute(acquiring.command(), timeout.toNanos()));
  }

  /**
   * Decides {@code checks} like {@link #tryAcquireAll(List)}, waiting at most {@code timeout} for
   * the answer. Checks on one key (a client's coalesced batch on a hot key) go as one command on
   * the caller's thread.
   *
   * @throws TimeoutException if the answer did not come in time; the checks may still be counted
   */
  public List<Decision> tryAcquireAll(List<Check> checks, Duration timeout)
      throws TimeoutException {
    long deadline = System.nanoTime() + Objects.requireNonNull(timeout, "timeout").toNanos();
    CompletableFuture<Void> known = backend.fetchRules(ruleNames(checks));
    awaitWithin(known, left(deadline));
    int change = policyChangeAt(checks);
    if (change >= 0) {
      // A key back under another policy: the whole batch is valid or nothing counts, then its
      // parts are decided one after another (see decideInOrder).
      validate(checks, true, true);
      List<Decision> decided =
          new ArrayList<>(
              tryAcquireAll(checks.subList(0, change), Duration.ofNanos(left(deadline))));
      decided.addAll(
          tryAcquireAll(checks.subList(change, checks.size()), Duration.ofNanos(left(deadline))));
      return decided;
    }
    Grouped batch = group(checks, true, true, true);
    if (batch.commands().isEmpty()) {
      return batch.decisions(List.of());
    }
    long leftNanos = left(deadline);
    if (leftNanos <= 0) {
      throw new TimeoutException("the rules were read, but no time was left to send the batch");
    }
    if (batch.commands().size() == 1) {
      return batch.decisions(List.of(backend.execute(batch.commands().get(0), leftNanos)));
    }
    return batch.decisions(awaitWithin(execute(batch), leftNanos));
  }

  /** The time left until {@code deadlineNanos} ({@code System.nanoTime}), at least 0. */
  private static long left(long deadlineNanos) {
    return Math.max(0, deadlineNanos - System.nanoTime());
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

  private static KeyCommand command(Check check, KeyOp op) {
    return new KeyCommand(check.stateKey(), check.ref(), new KeyOp[] {op});
  }

  /**
   * The answer from a live lease of the check's key, or null: ask the owner. First, as {@link
   * #precheck} (one policy lookup for both), refuses a cost above the policy's capacity where the
   * policy is known here.
   */
  private @Nullable Decision fromLease(Check check, String stateKey) {
    CompiledPolicy policy = backend.policyOf(check.ref(), false);
    if (policy != null) {
      policy.checkCost(check.permits(), check.ref());
    }
    return leasable(check, policy) ? leases.answer(check, stateKey) : null;
  }

  /**
   * Whether a lease may answer {@code check}, or be asked for along with it: the one place that
   * says so, for single checks, batches and the fast path ({@link #tryAcquireLocally}). Never for a
   * check that may wait (the owner books it at a future instant, which a lease cannot), nor on a
   * policy whose owner grants none ({@link CompiledPolicy#leases}: leases off, a shadow or a
   * concurrency policy), so that its keys cost the holder no demand to track. Where the policy is
   * not known here (a client's check on a rule it never read), the owner keeps the promise: it
   * grants no lease on such a policy.
   *
   * @param policy the check's policy as known here, or null
   */
  private boolean leasable(Check check, @Nullable CompiledPolicy policy) {
    return leases != null && !check.waits() && (policy == null || policy.leases());
  }

  /** What {@link #windowLeaseIfLeasable} answers for a check no lease may answer here. */
  private static final long NOT_LEASABLE = -1;

  /**
   * With one lookup of {@code check}'s policy as known here, reading nothing: {@link #NOT_LEASABLE}
   * where a lease may not answer it ({@link #leasable(Check, CompiledPolicy)}) or the policy cannot
   * be read (the owner will answer for the rule); otherwise how long a lease to the end of the
   * window lasts at most on it ({@link
   * dev.sluice.core.algorithm.LimiterAlgorithm#windowLeaseNanos}), 0 where it has none or is not
   * known here.
   */
  private long windowLeaseIfLeasable(Check check) {
    if (leases == null || check.waits()) {
      return NOT_LEASABLE;
    }
    CompiledPolicy policy;
    try {
      policy = backend.policyOf(check.ref(), true);
    } catch (RuntimeException e) {
      return NOT_LEASABLE;
    }
    if (!leasable(check, policy)) {
      return NOT_LEASABLE;
    }
    return policy == null ? 0 : policy.algorithm().windowLeaseNanos();
  }

  /**
   * Sends a lease holder's ask for the next lease of a key ({@link LeaseHolder.Renewal}): an
   * acquire of no permits, in the background; the holder keeps what comes back.
   */
  private void renewLease(Check check, String stateKey, KeyOp op, long sentAtNanos) {
    LeaseHolder holder = leases;
    try {
      backend
          .executeAsync(new KeyCommand(stateKey, check.ref(), new KeyOp[] {op}))
          .whenComplete(
              (outcome, failure) -> {
                if (outcome != null) {
                  holder.keep(check, stateKey, op, outcome, 0, sentAtNanos);
                } else {
                  holder.askFailed(stateKey);
                }
              });
    } catch (RuntimeException e) {
      holder.askFailed(stateKey); // closed, or the transport refused it: a request asks next
    }
  }

  /** One acquire on its way to the owner, asking for a lease if its key is hot here. */
  private record Acquiring(
      Check check,
      String stateKey,
      KeyCommand command,
      long sentAtNanos,
      @Nullable LeaseHolder leases,
      AdmissionReceipts receipts) {
    Decision answer(KeyOutcome outcome) {
      if (leases != null && command.ops()[0].leasePermits() > 0) {
        leases.keep(check, stateKey, command.ops()[0], outcome, 0, sentAtNanos);
      }
      return receipts.ofOwnerAnswer(check, outcome.decision(0), outcome.decidedAtNanos());
    }
  }

  private Acquiring acquiring(Check check, String stateKey) {
    KeyOp op = acquireOp(check, stateKey);
    long sentAt = leases == null ? 0 : leases.now();
    return new Acquiring(
        check,
        stateKey,
        new KeyCommand(stateKey, check.ref(), new KeyOp[] {op}),
        sentAt,
        leases,
        receipts);
  }

  /** An acquire of {@code check}, with a request for a lease when one would pay here. */
  private KeyOp acquireOp(Check check, String stateKey) {
    long windowLeaseNanos = windowLeaseIfLeasable(check);
    if (windowLeaseNanos == NOT_LEASABLE) {
      return KeyOp.acquire(check.permits(), check.maxWait().toNanos());
    }
    return leases.wanted(check, stateKey, windowLeaseNanos).acquire(check.permits());
  }

  /** Sends a batch's commands (none when leases answered every check). */
  private CompletableFuture<List<KeyOutcome>> execute(Grouped batch) {
    return batch.commands().isEmpty()
        ? CompletableFuture.completedFuture(List.of())
        : backend.executeAll(batch.commands());
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
   * A batch grouped by key, and how to read the answers back in the checks' order.
   *
   * @param answered the checks a lease answered here (null where the owner decides)
   * @param leases the holder that keeps leases granted with a group's last op, or null
   */
  private record Grouped(
      List<Check> checks,
      List<Group> groups,
      List<KeyCommand> commands,
      @Nullable Decision[] answered,
      long sentAtNanos,
      @Nullable LeaseHolder leases,
      AdmissionReceipts receipts) {
    List<Decision> decisions(List<KeyOutcome> outcomes) {
      Decision[] decisions = answered.clone();
      for (int g = 0; g < groups.size(); g++) {
        Group group = groups.get(g);
        KeyOutcome outcome = outcomes.get(g);
        int last = group.indexes.size() - 1;
        if (leases != null && group.ops.get(last).leasePermits() > 0) {
          leases.keep(
              checks.get(group.indexes.get(last)),
              group.stateKey,
              group.ops.get(last),
              outcome,
              last,
              sentAtNanos);
        }
        for (int j = 0; j <= last; j++) {
          int index = group.indexes.get(j);
          decisions[index] =
              receipts.ofOwnerAnswer(
                  checks.get(index), outcome.decision(j), outcome.decidedAtNanos());
        }
      }
      return List.of(decisions);
    }
  }

  /**
   * Validates a batch whole, then groups it by key. With {@code nameChecks} an error names the
   * check it is about ({@code checks[2].cost}), as a batch's caller needs to know which. With
   * {@code leasing}, checks a live lease can answer are answered here (only once the whole batch is
   * known to be valid), and each hot key's last op asks for a lease.
   */
  private Grouped group(List<Check> checks, boolean fetch, boolean nameChecks, boolean leasing) {
    validate(checks, fetch, nameChecks);
    LeaseHolder holder = leasing ? leases : null;
    Decision[] answered = new Decision[checks.size()];
    Map<String, Group> byKey = new LinkedHashMap<>();
    Map<String, LeaseAsk> wanted = new LinkedHashMap<>();
    for (int i = 0; i < checks.size(); i++) {
      Check check = checks.get(i);
      String stateKey = check.stateKey();
      long windowLeaseNanos = holder == null ? NOT_LEASABLE : windowLeaseIfLeasable(check);
      if (windowLeaseNanos != NOT_LEASABLE) {
        answered[i] = holder.answer(check, stateKey);
        if (answered[i] != null) {
          continue;
        }
        wanted.merge(
            stateKey,
            holder.wanted(check, stateKey, windowLeaseNanos),
            (a, b) -> b.exceeds(a) ? b : a);
      }
      Group group = byKey.computeIfAbsent(stateKey, key -> new Group(key, check.ref()));
      group.indexes.add(i);
      group.ops.add(KeyOp.acquire(check.permits(), check.maxWait().toNanos()));
    }
    List<Group> groups = new ArrayList<>(byKey.values());
    List<KeyCommand> commands = new ArrayList<>(groups.size());
    for (Group group : groups) {
      LeaseAsk want = wanted.getOrDefault(group.stateKey, LeaseAsk.NONE);
      int last = group.ops.size() - 1;
      if (want.permits() > 0 && group.ops.get(last).maxWaitNanos() == 0) {
        group.ops.set(last, want.acquire(group.ops.get(last).permits()));
      }
      commands.add(new KeyCommand(group.stateKey, group.ref, group.ops.toArray(new KeyOp[0])));
    }
    long sentAt = holder == null ? 0 : holder.now();
    return new Grouped(checks, groups, commands, answered, sentAt, holder, receipts);
  }

  /**
   * Refuses a batch, before anything is counted, if one of its checks is wrong for its policy where
   * the policy is known here; with {@code nameChecks} the error names the check ({@code
   * checks[2].cost}).
   */
  private void validate(List<Check> checks, boolean fetch, boolean nameChecks) {
    Check.requireAll(checks);
    for (int i = 0; i < checks.size(); i++) {
      try {
        precheck(checks.get(i), fetch);
      } catch (InvalidPolicyException e) {
        throw !nameChecks
            ? e
            : new InvalidPolicyException("checks[" + i + "]." + e.field(), LimitSpec.problem(e));
      } catch (UnknownRuleException e) {
        throw !nameChecks ? e : new UnknownRuleException(e.rule(), "checks[" + i + "].rule");
      }
    }
  }
}
