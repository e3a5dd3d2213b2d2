package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Scope;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.member.RegionBudgetProcessor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * A global rule's check in a region, on the key's owner in the region (sent there with {@code
 * submitToKeyOwner} on {@link RegionLink#EXECUTOR}), off the partition thread:
 *
 * <ol>
 *   <li>Spend from the key's regional budget ({@link RegionBudgetProcessor}, one entry processor on
 *       this member): most requests end here, at in-region latency. When the budget runs low the
 *       step says so, and {@link RegionLink#refillAhead} asks home in the background. A check that
 *       only paced permits not usable yet could answer is denied here until they are ({@code
 *       LEASE}, {@link dev.sluice.core.region.RegionBudget#usableInNanos}); one the budget cannot
 *       answer while home's last denial of the key holds is denied here too ({@code DENIED_CACHE},
 *       {@link dev.sluice.core.region.RegionBudget#deniedFor}).
 *   <li>A budget that cannot answer: ask home for the request's permits and a lease to the end of
 *       the window on top (the lease ask every holder sends, decided by the home owner's {@code
 *       KeyDecision}); home's answer is the request's, and the lease is deposited in the budget, or
 *       home's denial remembered with it until its retry-after.
 *   <li>Home does not answer within the home timeout, or the link is down: the rule's {@code
 *       onHomeUnreachable} answers ({@link Scope.OnHomeUnreachable}).
 * </ol>
 *
 * No admission made here carries a receipt ({@link KeyOutcome#noReceipt}): a region refuses the
 * release of a global key, so a receipt would promise what no one here can do.
 *
 * <p>A check on a rule that is not global (it changed, or the caller's copy is stale) is decided
 * here as any check is ({@link DecideProcessor}).
 */
public final class RegionDecideTask
    implements Callable<KeyOutcome>, IdentifiedDataSerializable, HazelcastInstanceAware {
  private KeyCommand command;
  private transient @Nullable HazelcastInstance member;

  /** For deserialization. */
  public RegionDecideTask() {
    this.command = new KeyCommand("", PolicyRef.rule("x"), new KeyOp[0]);
  }

  public RegionDecideTask(KeyCommand command) {
    this.command = command;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.member = hazelcastInstance;
  }

  @Override
  public KeyOutcome call() {
    HazelcastInstance here = member;
    MemberContext context = here == null ? null : MemberContext.of(here);
    RegionLink link = here == null ? null : RegionLink.of(here);
    int size = command.ops().length;
    if (context == null || here == null) {
      return KeyOutcome.invalid(size, "member", "member: not configured for Sluice");
    }
    CompiledPolicy policy;
    try {
      policy = context.rules().resolve(command.ref());
    } catch (UnknownRuleException e) {
      return KeyOutcome.unknownRule(size, e.rule());
    }
    if (link == null || !policy.policy().global()) {
      return here.<String, StateValue>getMap(GridNames.STATE_MAP)
          .executeOnKey(command.stateKey(), new DecideProcessor(command));
    }
    KeyOutcome outcome = new KeyOutcome(size, context.timeSource().nowNanos());
    String rule = ((PolicyRef.Named) command.ref()).rule();
    for (int i = 0; i < size; i++) {
      KeyOp op = command.ops()[i];
      if (op.kind() != KeyOp.Kind.ACQUIRE || op.maxWaitNanos() > 0) {
        outcome.setError(
            i,
            KeyOutcome.Code.INVALID,
            "rule",
            "rule: '"
                + rule
                + "' is global, counted at the home grid: a region answers its checks (without"
                + " maxWait); peeks, resets, releases and reservations are made at home");
        continue;
      }
      decide(link, here, rule, policy.policy(), op.permits(), outcome, i);
      if (outcome.code(i) == KeyOutcome.Code.OK) {
        // A release of a global key is made at home, never here: no receipt to show one.
        outcome.setNoReceipt(i);
      }
    }
    return outcome;
  }

  private void decide(
      RegionLink link,
      HazelcastInstance here,
      String rule,
      Policy policy,
      long permits,
      KeyOutcome outcome,
      int index) {
    String stateKey = command.stateKey();
    int shape = link.homeShape(rule, policy);
    RegionBudgetProcessor.Result spent =
        link.budgets()
            .executeOnKey(
                stateKey, RegionBudgetProcessor.spend(permits, shape, link.roundTripNanos()));
    link.held(stateKey, spent.held());
    link.giveBack(rule, stateKey, spent.giveBack());
    if (spent.refillAsk() > 0) {
      link.refillAhead(rule, stateKey, spent.refillAsk(), shape);
    }
    if (spent.answered()) {
      link.answeredFromBudget.increment();
      outcome.setDecision(
          index,
          Decision.allow(policy.limit(), spent.held(), policy.windowNanos())
              .decidedBy(Decision.DecidedBy.LEASE));
      return;
    }
    if (spent.usableInNanos() > 0) {
      // Paced permits held here are not usable yet: home counted them for this region, so home
      // asked instead would deny this check too.
      link.deniedUntilUsable.increment();
      outcome.setDecision(
          index,
          Decision.deny(
                  policy.limit(),
                  0,
                  spent.usableInNanos(),
                  Math.max(spent.usableInNanos(), policy.windowNanos()))
              .decidedBy(Decision.DecidedBy.LEASE));
      return;
    }
    // More than the limit is an error home reports, never a denial to remember.
    if (spent.deniedForNanos() > 0 && permits <= policy.limit()) {
      link.answeredFromDenial.increment();
      outcome.setDecision(
          index,
          Decision.deny(policy.limit(), 0, spent.deniedForNanos(), spent.deniedResetAfterNanos())
              .decidedBy(Decision.DecidedBy.DENIED_CACHE));
      return;
    }
    if (link.tryHome()) {
      link.waitedOnHome.increment();
      Optional<RegionLink.HomeAnswer> answer = link.ask(rule, stateKey, permits, spent.ask());
      if (answer.isPresent()) {
        KeyOutcome home = answer.get().outcome();
        var grant = answer.get().grant(shape);
        if (grant != null) {
          link.deposit(rule, stateKey, grant);
        }
        if (home.code(0) == KeyOutcome.Code.OK) {
          Decision decided = home.decision(0);
          if (!decided.allowed()) {
            link.rememberDenial(stateKey, permits, answer.get().sentAtNanos(), decided);
          }
          outcome.setDecision(index, decided.withReceipt(null));
        } else {
          outcome.setError(index, home.code(0), home.subject(0), home.message(0));
        }
        return;
      }
    }
    onHomeUnreachable(link, here, rule, policy, permits, outcome, index);
  }

  /**
   * The rule's answer while home cannot answer (docs/multi-region.md, "The invariant and the
   * bounds").
   */
  private void onHomeUnreachable(
      RegionLink link,
      HazelcastInstance here,
      String rule,
      Policy policy,
      long permits,
      KeyOutcome outcome,
      int index) {
    Scope scope = policy.scope();
    switch (scope.onHomeUnreachable()) {
      case FAIL_OPEN -> {
        link.failOpen.increment();
        outcome.setDecision(
            index, Decision.allow(policy.limit(), 0, 0).decidedBy(Decision.DecidedBy.FAIL_OPEN));
      }
      case FAIL_CLOSED -> {
        link.failClosed.increment();
        link.deniedWhileWaiting.increment();
        outcome.setDecision(
            index,
            Decision.deny(policy.limit(), 0, RegionLink.RETRY_NANOS, 0)
                .decidedBy(Decision.DecidedBy.FAIL_CLOSED));
      }
      case LOCAL_SHARE -> {
        link.localShare.increment();
        long share = scope.localLimit(link.region(), policy.limit());
        if (share < 1) {
          link.deniedWhileWaiting.increment();
          outcome.setDecision(
              index, Decision.deny(0, 0, RegionLink.RETRY_NANOS, RegionLink.RETRY_NANOS));
          return;
        }
        Policy alone = policy.withScope(Scope.LOCAL).withLimit(share);
        PolicyRef ref = PolicyRef.inlineUnder("region-share." + rule, alone);
        String subject = command.stateKey().substring(rule.length() + 1);
        KeyCommand local = KeyCommand.of(ref, subject, KeyOp.acquire(permits));
        KeyOutcome decided =
            here.<String, StateValue>getMap(GridNames.STATE_MAP)
                .executeOnKey(local.stateKey(), new DecideProcessor(local));
        if (decided.code(0) == KeyOutcome.Code.OK) {
          Decision decision = decided.decision(0);
          if (!decision.allowed()) {
            link.deniedWhileWaiting.increment();
          }
          outcome.setDecision(index, decision);
        } else {
          outcome.setError(index, decided.code(0), decided.subject(0), decided.message(0));
        }
      }
    }
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.REGION_DECIDE;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    WireFormat.writeCommand(out, command);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    command = WireFormat.readCommand(in);
  }
}
