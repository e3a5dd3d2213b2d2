package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.StateKey;
import dev.sluice.core.TimeSource;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.ReservationLedger;
import dev.sluice.core.decision.SpentReceipts;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.RuleRecord;
import dev.sluice.core.pipeline.RuleBook;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * What a member knows locally that processors need: its {@link TimeSource} and its copy of the
 * rules. Installed by {@code SluiceHazelcast.configure} in the member's config user context, where
 * processors find it through {@link HazelcastInstanceAware} injection; nothing here makes a remote
 * call.
 *
 * <h2>Keeping the rules copy current</h2>
 *
 * Three paths, ordered by the record version (a change is applied only if newer):
 *
 * <ol>
 *   <li>{@code GridRuleStore.put} pushes the new record to every member and waits, so a rule change
 *       is in force on every member before {@code put} returns (read-your-writes for callers);
 *   <li>an entry listener on the rules map catches changes made any other way;
 *   <li>on start (and so on join) the member loads the whole map.
 * </ol>
 *
 * Until the load has finished, a processor that misses a rule asks Hazelcast to retry rather than
 * answer "unknown rule" from an empty copy. Rules resolve through a {@link RuleBook} over this
 * copy, as in every runtime; a record's former policies are how a state of an older shape is
 * carried over.
 *
 * <h2>Cleanup</h2>
 *
 * The member's {@link StateSweeper} removes idle rule states from the partitions it owns, judging
 * each by the policy that wrote it ({@link #removable}); rule states are written without a TTL.
 */
public final class MemberContext implements LifecycleListener, HazelcastInstanceAware {
  /** The key of this context in the member config's user context. */
  public static final String USER_CONTEXT_KEY = "dev.sluice.memberContext";

  static final int MAX_INLINE_POLICIES = 4096;

  private final TimeSource timeSource;
  private final String rulesMapName;
  private final long minStateTtlMillis;
  private final ConcurrentHashMap<String, RuleRecord> records = new ConcurrentHashMap<>();
  private final RuleBook book;
  private final ConcurrentHashMap<Long, CompiledPolicy> formerCompiled = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Policy> inlinePolicies = new ConcurrentHashMap<>();
  private final AtomicLong rulesVersion = new AtomicLong();
  private final LongAdder settledAtEstimate = new LongAdder();
  private final StateSweeper sweeper;
  private volatile boolean rulesLoaded;
  private volatile @Nullable String region;
  private volatile @Nullable HazelcastInstance instance;

  public MemberContext(
      TimeSource timeSource, String rulesMapName, long minStateTtlMillis, long sweepPeriodMillis) {
    this.timeSource = timeSource;
    this.rulesMapName = rulesMapName;
    this.minStateTtlMillis = minStateTtlMillis;
    this.sweeper = new StateSweeper(this, sweepPeriodMillis);
    this.book =
        new RuleBook(
            name -> {
              RuleRecord record = records.get(name);
              return record == null ? null : record.policy();
            });
  }

  /** The member whose context {@link #of} found last, with that context. */
  private record Found(HazelcastInstance member, @Nullable MemberContext context) {}

  private static volatile @Nullable Found lastFound;

  /**
   * The context of a member, or null if it was not configured for Sluice. Every processor asks on
   * every decision, and a JVM almost always holds one member, so the last answer is kept (by
   * identity; with several members in one JVM it is simply looked up more often).
   */
  public static @Nullable MemberContext of(HazelcastInstance member) {
    Found found = lastFound;
    if (found != null && found.member() == member) {
      return found.context();
    }
    MemberContext context =
        (MemberContext) member.getConfig().getUserContext().get(USER_CONTEXT_KEY);
    if (context != null) {
      lastFound = new Found(member, context);
    }
    return context;
  }

  /**
   * The region this member decides global rules in, from budgets its link to the home grid brings
   * ({@code RegionLink}), or null if it is in no region (or is home).
   */
  public @Nullable String region() {
    return region;
  }

  public void setRegion(@Nullable String region) {
    this.region = region;
  }

  public TimeSource timeSource() {
    return timeSource;
  }

  /** See {@code SluiceHazelcast.MIN_STATE_TTL_MILLIS_PROPERTY}. */
  long minStateTtlMillis() {
    return minStateTtlMillis;
  }

  public boolean rulesLoaded() {
    return rulesLoaded;
  }

  public StateSweeper sweeper() {
    return sweeper;
  }

  /**
   * Whether the rule state stored under {@code stateKey} may go at {@code nowNanos}: whether it
   * decides as an absent key would, by the algorithm of the policy that wrote it (the rule's
   * current policy or a former one, found by the state's fingerprint; the one a state under a state
   * name keeps). A state of a shape its rule no longer remembers may go: a decision would start it
   * afresh anyway ({@link dev.sluice.core.decision.KeyDecision}). A state whose rule this member
   * has no record of, or whose policy it cannot run, is kept: it cannot be judged here.
   */
  boolean removable(String stateKey, StoredState stored, long nowNanos) {
    if (ReservationLedger.untilExpiredNanos(stored.reservations(), nowNanos) > 0) {
      return false; // a commit still to come must find its reservation, and charge
    }
    if (stored.writer() != null) {
      // A state under a state name says which policy wrote it.
      try {
        LimiterAlgorithm algorithm = book.resolve(PolicyRef.inline(stored.writer())).algorithm();
        return algorithm.untilFreshNanos(algorithm.fit(stored.values().clone()), nowNanos) == 0;
      } catch (RuntimeException e) {
        return false; // a policy this build cannot run
      }
    }
    int bar = stateKey.indexOf('|');
    if (bar <= 0) {
      return false;
    }
    String rule = stateKey.substring(0, bar);
    RuleRecord record = records.get(rule);
    if (record == null) {
      return false;
    }
    try {
      int shape = stored.fingerprint();
      CompiledPolicy writer = null;
      if (record.policy() != null) {
        CompiledPolicy current = book.resolve(PolicyRef.rule(rule));
        if (shape == current.fingerprint()) {
          writer = current;
        }
      }
      if (writer == null) {
        writer = formerPolicy(PolicyRef.rule(rule), shape);
      }
      if (writer == null) {
        return true;
      }
      if (SpentReceipts.untilForgettableNanos(
              stored.spentReceipts(), nowNanos, writer::receiptWindowEndNanos)
          > 0) {
        return false; // a replay of a receipt given back must still find it spent
      }
      LimiterAlgorithm algorithm = writer.algorithm();
      return algorithm.untilFreshNanos(algorithm.fit(stored.values().clone()), nowNanos) == 0;
    } catch (RuntimeException e) {
      return false; // a rule removed meanwhile, or a policy this build cannot run
    }
  }

  /** Rule resolution over this member's copy. */
  public RuleBook rules() {
    return book;
  }

  /** The live record of rule {@code name} in the local copy, or null. */
  public @Nullable RuleRecord record(String name) {
    RuleRecord record = records.get(name);
    return record == null || record.isRemoved() ? null : record;
  }

  /**
   * The policy that wrote a state of {@code fingerprint} under {@code ref}: one of its rule's
   * former policies, or null if none is known (an inline policy's state key names its policy, so
   * its states never change shape; one under a state name keeps its writer with the state).
   */
  @Nullable CompiledPolicy formerPolicy(PolicyRef ref, int fingerprint) {
    if (!(ref instanceof PolicyRef.Named named)) {
      return null;
    }
    RuleRecord record = records.get(named.rule());
    if (record == null) {
      return null;
    }
    for (Policy former : record.former()) {
      if (CompiledPolicy.fingerprint(former) == fingerprint) {
        long cacheKey = ((long) named.rule().hashCode() << 32) ^ (fingerprint & 0xffffffffL);
        CompiledPolicy compiled = formerCompiled.get(cacheKey);
        if (compiled == null || !compiled.policy().equals(former)) {
          compiled = CompiledPolicy.of(former);
          if (formerCompiled.size() > MAX_INLINE_POLICIES) {
            formerCompiled.clear();
          }
          formerCompiled.put(cacheKey, compiled);
        }
        return compiled;
      }
    }
    return null;
  }

  /**
   * Counts reservations settled at their estimate on this member (their ttl passed uncommitted): by
   * a decision that stored the key without them, or by the sweep that removed the key.
   */
  void countSettledAtEstimate(int reservations) {
    if (reservations > 0) {
      settledAtEstimate.add(reservations);
    }
  }

  /** Reservations settled at their estimate on the keys this member owned. */
  public long reservationsSettledAtEstimate() {
    return settledAtEstimate.sum();
  }

  /**
   * Remembers the inline policy of a state key this member decided, by the policy identity the key
   * carries, so that {@link MostConsumedMergePolicy} can judge inline keys after a split brain.
   * Bounded: past {@value #MAX_INLINE_POLICIES} identities new ones are not remembered (their keys
   * then merge by latest update).
   */
  void rememberInline(String stateKey, Policy policy) {
    String identity = StateKey.ruleOf(stateKey);
    if (!inlinePolicies.containsKey(identity) && inlinePolicies.size() < MAX_INLINE_POLICIES) {
      inlinePolicies.put(identity, policy);
    }
  }

  /** The inline policy of a state key's identity part ({@code ~...}), if this member saw it. */
  @Nullable Policy inlinePolicy(String identity) {
    return inlinePolicies.get(identity);
  }

  /** Applies a record if it is newer than the one held. */
  void apply(RuleRecord record) {
    RuleRecord held =
        records.merge(
            record.name(), record, (old, neu) -> neu.version() > old.version() ? neu : old);
    if (held == record) {
      rulesVersion.incrementAndGet();
    }
  }

  /** A number that moves with every record this copy applies ({@code Backend#rulesVersion}). */
  public long rulesVersion() {
    return rulesVersion.get();
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.instance = hazelcastInstance;
  }

  @Override
  public void stateChanged(LifecycleEvent event) {
    if (event.getState() == LifecycleEvent.LifecycleState.STARTED) {
      loadRules();
      HazelcastInstance member = instance;
      if (member != null) {
        sweeper.start(member);
      }
    } else if (event.getState() == LifecycleEvent.LifecycleState.SHUTTING_DOWN) {
      sweeper.stop();
    }
  }

  /** Subscribes to rule changes, then loads every rule; versions settle any overlap. */
  void loadRules() {
    HazelcastInstance member = instance;
    if (member == null || rulesLoaded) {
      return;
    }
    IMap<String, RuleRecord> map = member.getMap(rulesMapName);
    map.addEntryListener(new RuleListener(), true);
    for (RuleRecord record : map.values()) {
      apply(record);
    }
    rulesLoaded = true;
  }

  private final class RuleListener
      implements EntryAddedListener<String, RuleRecord>, EntryUpdatedListener<String, RuleRecord> {
    @Override
    public void entryAdded(com.hazelcast.core.EntryEvent<String, RuleRecord> event) {
      apply(event.getValue());
    }

    @Override
    public void entryUpdated(com.hazelcast.core.EntryEvent<String, RuleRecord> event) {
      apply(event.getValue());
    }
  }
}
