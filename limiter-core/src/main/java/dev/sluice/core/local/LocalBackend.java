package dev.sluice.core.local;

import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.RuleStore;
import dev.sluice.core.TimeSource;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.ReservationLedger;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.pipeline.RuleBook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The local runtime: key states in a concurrent map in this JVM, each decided under its own monitor
 * by {@link KeyDecision}.
 *
 * <h2>Atomic and ordered per key</h2>
 *
 * A decision looks the key's slot up, takes its monitor, reads the clock and runs the step; the
 * monitor makes a key's decisions atomic and ordered (each sees the last, and the instants a key
 * sees never go backwards with respect to that order); different keys never wait for each other. An
 * existing key costs a map read and an uncontended monitor.
 *
 * <h2>Forgetting, never early</h2>
 *
 * A slot is forgotten only once its state is fresh again ({@link
 * dev.sluice.core.algorithm.LimiterAlgorithm#untilFreshNanos}, on this limiter's own clock): it is
 * then treated as fresh on its next use and swept out of memory in the background at most every
 * {@link LocalRateLimiter#SWEEP_INTERVAL_NANOS} of the limiter's clock. A slot leaves the map under
 * its monitor, marked retired, and a decision that finds its slot retired looks again, so no
 * decision is applied to a state the map no longer holds.
 *
 * <p>Memory is bounded by the keys whose states still count. {@code maxKeys} guards it: when that
 * many keys hold live state and none can be swept, a request on a new key is denied (the strict
 * side) rather than evicting a state that still counts, which would hand its key a fresh budget.
 */
final class LocalBackend implements Backend {
  /** How long a request on a new key waits when the table is full: a sweep interval. */
  static final long FULL_RETRY_NANOS = LocalRateLimiter.SWEEP_INTERVAL_NANOS;

  private final TimeSource clock;
  private final RuleStore rules;
  private final RuleBook book;
  private final long maxKeys;
  private final ConcurrentHashMap<String, Slot> states = new ConcurrentHashMap<>();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private final LongAdder settledAtEstimate = new LongAdder();

  /** This limiter's own: its receipts mean nothing to another limiter, as its counts do not. */
  private final ReceiptKey receiptKey = ReceiptKey.random();

  private volatile long nextSweepNanos;

  LocalBackend(TimeSource clock, RuleStore rules, long maxKeys) {
    this.clock = clock;
    this.rules = rules;
    this.maxKeys = maxKeys;
    this.book =
        new RuleBook(name -> rules.find(name).map(dev.sluice.core.Rule::policy).orElse(null));
    this.nextSweepNanos = plusSaturated(clock.nowNanos(), LocalRateLimiter.SWEEP_INTERVAL_NANOS);
  }

  /**
   * A key's state, guarded by its own monitor. The map only holds slots that are not retired; a
   * retired slot is never written again.
   */
  private static final class Slot {
    @Nullable StoredState stored;
    @Nullable CompiledPolicy writtenBy;
    // Never written: already sweepable, and read as fresh.
    long expiresAtNanos = Long.MIN_VALUE;
    boolean retired;
  }

  /**
   * In this JVM, at once: a deadline never passes. A request too big for its policy is refused
   * before anything is decided, naming the policy, as every runtime that knows the policy refuses
   * it; within a command that merged several callers' requests, it fails alone, as an owner fails
   * it ({@link KeyDecision}).
   */
  @Override
  public KeyOutcome execute(KeyCommand command, Deadline deadline) {
    CompiledPolicy policy;
    try {
      policy = book.resolve(command.ref());
    } catch (UnknownRuleException e) {
      return KeyOutcome.unknownRule(command.ops().length, e.rule());
    }
    if (command.ops().length == 1) {
      policy.checkCosts(command);
    }
    boolean creates = acquires(command);
    while (true) {
      Slot slot = states.get(command.stateKey());
      if (slot == null) {
        if (!creates) {
          // A peek or a release on a key with no state: decide on a fresh one, store nothing.
          return KeyDecision.decide(policy, null, fp -> null, clock.nowNanos(), command.ops())
              .outcome();
        }
        if (states.size() >= maxKeys && !sweepToMakeRoom()) {
          return full(policy, command);
        }
        slot = states.computeIfAbsent(command.stateKey(), key -> new Slot());
      }
      long nowNanos;
      KeyOutcome outcome;
      synchronized (slot) {
        if (slot.retired) {
          continue; // removed since we looked it up: look again
        }
        nowNanos = clock.nowNanos();
        if (slot.stored != null && nowNanos >= slot.expiresAtNanos) {
          forget(slot, nowNanos); // fresh again: decided as a new key
        }
        StoredState stored = slot.stored;
        CompiledPolicy former = slot.writtenBy;
        KeyDecision.Result result =
            KeyDecision.decide(
                policy,
                stored,
                fingerprint ->
                    former != null && former.fingerprint() == fingerprint ? former : null,
                nowNanos,
                command.ops(),
                command.ref().storesPolicyWithState());
        if (result.written() != null) {
          settledAtEstimate.add(result.settledAtEstimate());
          slot.stored = result.written();
          slot.writtenBy = policy;
          slot.expiresAtNanos = plusSaturated(nowNanos, result.untilFreshNanos());
        }
        outcome = result.outcome();
      }
      if (nowNanos >= nextSweepNanos) {
        sweepInBackground(nowNanos);
      }
      return outcome;
    }
  }

  @Override
  public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
    try {
      return CompletableFuture.completedFuture(execute(command, deadline));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<List<KeyOutcome>> executeAll(
      List<KeyCommand> commands, Deadline deadline) {
    try {
      List<KeyOutcome> outcomes = new ArrayList<>(commands.size());
      for (KeyCommand command : commands) {
        outcomes.add(execute(command, deadline));
      }
      return CompletableFuture.completedFuture(outcomes);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
    try {
      book.resolve(ref); // a typo must not look like a reset
    } catch (UnknownRuleException e) {
      return CompletableFuture.failedFuture(e);
    }
    states.computeIfPresent(
        stateKey,
        (key, slot) -> {
          retire(slot);
          return null;
        });
    return DONE;
  }

  @Override
  public RuleStore rules() {
    return rules;
  }

  @Override
  public CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
    return book.resolve(ref);
  }

  /** The rules are here: nothing to fetch. */
  @Override
  public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
    return DONE;
  }

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  /** Drops a slot's state, counting the reservations that dropping it settles at their estimate. */
  private void forget(Slot slot, long nowNanos) {
    if (slot.stored != null) {
      settledAtEstimate.add(ReservationLedger.expiredOpen(slot.stored.reservations(), nowNanos));
      slot.stored = null;
    }
  }

  @Override
  public ReceiptKey receiptKey() {
    return receiptKey;
  }

  @Override
  public LongSupplier reservationsSettledAtEstimate() {
    return settledAtEstimate::sum;
  }

  /** Keys holding state, including idle ones not swept yet. */
  long keyCount() {
    return states.size();
  }

  /** Sweeps idle states out of memory now. */
  void sweep() {
    long nowNanos = clock.nowNanos();
    for (Map.Entry<String, Slot> entry : states.entrySet()) {
      Slot slot = entry.getValue();
      boolean expired;
      synchronized (slot) {
        expired = !slot.retired && nowNanos >= slot.expiresAtNanos;
        if (expired) {
          slot.retired = true;
          forget(slot, nowNanos);
        }
      }
      if (expired) {
        states.remove(entry.getKey(), slot);
      }
    }
  }

  private static boolean acquires(KeyCommand command) {
    for (KeyOp op : command.ops()) {
      if (op.takes()) {
        return true;
      }
    }
    return false;
  }

  /** A full table answers a new key's acquires with a denial, its peeks as a fresh state. */
  private KeyOutcome full(CompiledPolicy policy, KeyCommand command) {
    KeyOp[] ops = command.ops();
    KeyOutcome fresh =
        KeyDecision.decide(policy, null, fp -> null, clock.nowNanos(), ops).outcome();
    KeyOutcome outcome = new KeyOutcome(ops.length, fresh.decidedAtNanos());
    long capacity = policy.capacity();
    for (int i = 0; i < ops.length; i++) {
      Decision decision = fresh.decisionOrNull(i);
      if (decision == null) {
        outcome.setError(i, fresh.code(i), fresh.subject(i), fresh.message(i));
      } else if (ops[i].takes()) {
        outcome.setDecision(i, Decision.deny(capacity, 0, FULL_RETRY_NANOS, FULL_RETRY_NANOS));
      } else {
        outcome.setDecision(i, decision);
      }
    }
    return outcome;
  }

  /** Sweeps at once when the table is full; whether there is room now. */
  private boolean sweepToMakeRoom() {
    if (sweeping.compareAndSet(false, true)) {
      try {
        sweep();
      } finally {
        sweeping.set(false);
      }
    }
    return states.size() < maxKeys;
  }

  private void sweepInBackground(long nowNanos) {
    if (sweeping.compareAndSet(false, true)) {
      nextSweepNanos = plusSaturated(nowNanos, LocalRateLimiter.SWEEP_INTERVAL_NANOS);
      ForkJoinPool.commonPool()
          .execute(
              () -> {
                try {
                  sweep();
                } finally {
                  sweeping.set(false);
                }
              });
    }
  }

  private static void retire(Slot slot) {
    synchronized (slot) {
      slot.retired = true;
    }
  }

  /** {@code now + delay} for {@code delay >= 0}, capped rather than wrapped. */
  private static long plusSaturated(long nowNanos, long delayNanos) {
    long sum = nowNanos + delayNanos;
    return sum < nowNanos ? Long.MAX_VALUE : sum;
  }
}
