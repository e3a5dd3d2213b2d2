package dev.sluice.bench.lease;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.rules.InMemoryRuleStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One trace replayed under one lease policy, on a virtual clock, in one thread: discrete events in
 * time order (a request, an owner deciding a command, an answer arriving, a sweep of ended leases).
 *
 * <h2>What runs</h2>
 *
 * Each holder is a real {@link BackendStack} with leases ({@code LeaseAnswers} over {@code
 * LeaseAsks}, the {@link LeaseHolder} and the policy under test), over a storage that stands for
 * the network and the key's owner: a command sent at {@code t} is decided at {@code t + rtt / 2} by
 * {@link KeyDecision} on the owner's stored state, as the grid's entry processor decides it, and
 * its answer arrives back at {@code t + rtt}. A request answered from a lease costs {@code local}.
 * Every holder sweeps its ended leases every {@value #SWEEP_MILLIS} ms, as the JVM's sweeper does;
 * returns and renewals travel like any command. Nothing here reads a real clock or starts a thread,
 * so the same trace gives the same figures.
 *
 * <h2>What is measured</h2>
 *
 * <ul>
 *   <li>where each request was decided: at the owner (a round trip) or at its holder;
 *   <li>the owner alone: every request also goes, at the instant it would have reached the owner,
 *       to a second owner state that grants no lease; a request the leased system denied and the
 *       owner alone admitted is one a lease made stricter;
 *   <li>every admission (at the owner, or at a holder from a lease) is judged at its instant
 *       against the rule's bound ({@link AdmissionJudge}): over-admission must be 0;
 *   <li>the holders' memory: leases held and keys their policy tracks, sampled at every sweep.
 * </ul>
 */
final class Simulation {
  /** Virtual time 0, as epoch nanoseconds: a whole minute, so windows start with the run. */
  static final long ORIGIN = 1_763_700_000_000_000_000L;

  static final long SWEEP_MILLIS = 10;
  private static final long SWEEP_NANOS = SWEEP_MILLIS * 1_000_000L;

  /** How long the run goes on after the last request: the last answers and returns land. */
  private static final long DRAIN_NANOS = 1_000_000_000L;

  /**
   * The modelled costs: a round trip from a holder to the key's owner and back, and an answer from
   * a lease at the holder.
   */
  record Costs(long roundTripNanos, long localNanos) {}

  /** What one run measured. */
  record Result(
      String trace,
      String policy,
      long requests,
      long atOwner,
      long answeredLocally,
      long deniedLocally,
      long admitted,
      long admittedAlone,
      long stricter,
      long overAdmitted,
      long ownerCommands,
      long returns,
      long shortLeases,
      long windowLeases,
      long pacedLeases,
      long peakLeasesPerHolder,
      long peakKeysPerHolder,
      long peakBytesPerHolder,
      double meanCostNanos) {

    double ownerShare() {
      return requests == 0 ? 0 : (double) atOwner / requests;
    }

    double stricterShare() {
      return requests == 0 ? 0 : (double) stricter / requests;
    }

    double commandsPerRequest() {
      return requests == 0 ? 0 : (double) ownerCommands / requests;
    }
  }

  private record Event(long atNanos, long sequence, Runnable action) {}

  private final SimTrace trace;
  private final SimPolicy policy;
  private final Costs costs;
  private final Policy rule;
  private final CompiledPolicy compiled;
  private final PolicyRef ref = PolicyRef.rule("sim");
  private final RuleStore rules;
  private final PriorityQueue<Event> events =
      new PriorityQueue<>(
          (a, b) ->
              a.atNanos != b.atNanos
                  ? Long.compare(a.atNanos, b.atNanos)
                  : Long.compare(a.sequence, b.sequence));
  private long sequence;
  private long now = ORIGIN;

  private final Map<String, StoredState> owner = new HashMap<>();
  private final Map<String, StoredState> alone = new HashMap<>();
  private final AdmissionJudge judge;
  private final List<BackendStack> holders = new ArrayList<>();

  private long requests;
  private long atOwner;
  private long answeredLocally;
  private long deniedLocally;
  private long admitted;
  private long admittedAlone;
  private long stricter;
  private long ownerCommands;
  private long returns;
  private long shortLeases;
  private long windowLeases;
  private long pacedLeases;
  private long peakLeases;
  private long peakKeys;
  private long peakBytes;

  Simulation(SimTrace trace, SimPolicy policy, Costs costs) {
    this.trace = trace;
    this.policy = policy;
    this.costs = costs;
    this.rule = Rules.parse(trace.rule());
    this.compiled = CompiledPolicy.of(rule);
    this.rules = InMemoryRuleStore.of(List.of(new Rule("sim", rule)));
    this.judge = new AdmissionJudge(rule);
    Owner link = new Owner();
    for (int i = 0; i < trace.holders(); i++) {
      BackendStack.Builder stack = BackendStack.over(link);
      if (policy.factory() != null) {
        stack.leases(() -> now, policy.factory()).leaseReturnsByHand();
      }
      holders.add(stack.build());
    }
  }

  Result run() {
    Iterator<SimTrace.Request> requests = trace.requests().get();
    long last = ORIGIN;
    schedule(ORIGIN + SWEEP_NANOS, this::sweep);
    while (requests.hasNext()) {
      SimTrace.Request request = requests.next();
      long at = ORIGIN + request.atNanos();
      runUntil(at);
      now = at;
      last = at;
      send(request);
    }
    long end = last + DRAIN_NANOS;
    runUntil(end);
    long local = answeredLocally;
    double cost =
        this.requests == 0
            ? 0
            : (atOwner * (double) costs.roundTripNanos() + local * (double) costs.localNanos())
                / this.requests;
    return new Result(
        trace.name(),
        policy.label(),
        this.requests,
        atOwner,
        answeredLocally,
        deniedLocally,
        admitted,
        admittedAlone,
        stricter,
        judge.overAdmitted(),
        ownerCommands,
        returns,
        shortLeases,
        windowLeases,
        pacedLeases,
        peakLeases,
        peakKeys,
        peakBytes,
        cost);
  }

  private void runUntil(long until) {
    while (!events.isEmpty() && events.peek().atNanos <= until) {
      Event event = events.poll();
      now = event.atNanos;
      event.action.run();
    }
  }

  private void schedule(long atNanos, Runnable action) {
    events.add(new Event(atNanos, sequence++, action));
  }

  private void send(SimTrace.Request request) {
    requests++;
    KeyCommand command = KeyCommand.of(ref, request.key(), KeyOp.acquire(request.permits()));
    boolean allowedAlone = decideAlone(command, now + costs.roundTripNanos() / 2);
    if (allowedAlone) {
      admittedAlone += request.permits();
    }
    CompletableFuture<KeyOutcome> answer =
        holders.get(request.holder()).head().executeAsync(command, Deadline.NONE);
    answer.thenAccept(outcome -> answered(command, outcome, allowedAlone));
  }

  /** The owner alone's answer to {@code command} at {@code atNanos}: no lease asked or granted. */
  private boolean decideAlone(KeyCommand command, long atNanos) {
    KeyDecision.Result result =
        KeyDecision.decide(
            compiled, alone.get(command.stateKey()), fp -> null, atNanos, command.ops());
    if (result.written() != null) {
      alone.put(command.stateKey(), result.written());
    }
    return result.outcome().decision(0).allowed();
  }

  private void answered(KeyCommand command, KeyOutcome outcome, boolean allowedAlone) {
    Decision decision = outcome.decision(0);
    long permits = command.ops()[0].permits();
    if (decision.decidedBy() == Decision.DecidedBy.LEASE) {
      answeredLocally++;
      if (decision.allowed()) {
        judge.admitted(command.stateKey(), now, permits);
      } else {
        deniedLocally++;
      }
    } else {
      atOwner++; // judged where the owner decided it
    }
    if (decision.allowed()) {
      admitted += permits;
    } else if (allowedAlone) {
      stricter++;
    }
  }

  /** Every holder gives its ended leases back; memory is sampled. */
  private void sweep() {
    long leases = 0;
    long keys = 0;
    long bytes = 0;
    for (BackendStack holder : holders) {
      holder.sweepLeases();
      LeaseHolder.Statistics statistics = holder.leaseStatistics();
      if (statistics != null) {
        long held = statistics.leasesHeld();
        long tracked = statistics.keysTracked();
        leases = Math.max(leases, held);
        keys = Math.max(keys, tracked);
        bytes = Math.max(bytes, held * SimPolicy.LEASE_BYTES + tracked * policy.bytesPerKey());
      }
    }
    peakLeases = Math.max(peakLeases, leases);
    peakKeys = Math.max(peakKeys, keys);
    peakBytes = Math.max(peakBytes, bytes);
    schedule(now + SWEEP_NANOS, this::sweep);
  }

  /** Decides {@code command} on the owner's state at {@code atNanos}, judging its admissions. */
  private KeyOutcome decideAtOwner(KeyCommand command, long atNanos) {
    ownerCommands++;
    String key = command.stateKey();
    KeyDecision.Result result =
        KeyDecision.decide(compiled, owner.get(key), fp -> null, atNanos, command.ops());
    if (result.written() != null) {
      owner.put(key, result.written());
    }
    KeyOp[] ops = command.ops();
    if (ops[0].kind() == KeyOp.Kind.RETURN_LEASE) {
      returns++;
    }
    KeyOutcome outcome = result.outcome();
    for (int i = 0; i < ops.length; i++) {
      if (outcome.pacedLease(i) != null) {
        pacedLeases++;
      } else if (outcome.leased(i) > 0 && outcome.leaseToWindowEnd(i)) {
        windowLeases++;
      } else if (outcome.leased(i) > 0) {
        shortLeases++;
      }
      if (ops[i].kind() == KeyOp.Kind.ACQUIRE
          && ops[i].permits() > 0
          && result.outcome().decision(i).allowed()) {
        judge.admitted(key, atNanos, ops[i].permits());
      }
    }
    return result.outcome();
  }

  /**
   * The network and the key's owner, as every holder's storage: each command is decided half a
   * round trip after it was sent and answered half a round trip later.
   */
  private final class Owner implements Backend {
    /**
     * The owner's secret: the simulation gives nothing back by receipt, but its answers carry one.
     */
    private final ReceiptKey receiptKey = ReceiptKey.random();

    @Override
    public ReceiptKey receiptKey() {
      return receiptKey;
    }

    @Override
    public KeyOutcome execute(KeyCommand command, Deadline deadline) {
      throw new UnsupportedOperationException("the simulator sends every command asynchronously");
    }

    @Override
    public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
      CompletableFuture<KeyOutcome> answer = new CompletableFuture<>();
      long half = costs.roundTripNanos() / 2;
      schedule(
          now + half,
          () -> {
            KeyOutcome outcome = decideAtOwner(command, now);
            schedule(now + costs.roundTripNanos() - half, () -> answer.complete(outcome));
          });
      return answer;
    }

    @Override
    public CompletableFuture<List<KeyOutcome>> executeAll(
        List<KeyCommand> commands, Deadline deadline) {
      CompletableFuture<List<KeyOutcome>> answers = new CompletableFuture<>();
      long half = costs.roundTripNanos() / 2;
      schedule(
          now + half,
          () -> {
            List<KeyOutcome> outcomes = new ArrayList<>(commands.size());
            for (KeyCommand command : commands) {
              outcomes.add(decideAtOwner(command, now));
            }
            schedule(now + costs.roundTripNanos() - half, () -> answers.complete(outcomes));
          });
      return answers;
    }

    @Override
    public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
      owner.remove(stateKey);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public RuleStore rules() {
      return rules;
    }

    @Override
    public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
      return compiled;
    }

    @Override
    public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
      return CompletableFuture.completedFuture(null);
    }
  }
}
