package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import dev.sluice.core.Policy;
import dev.sluice.core.TimeSource;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What a member knows locally that processors need: its {@link TimeSource} and its copy of the
 * rules. Installed by {@link SluiceHazelcast#configure(com.hazelcast.config.Config, TimeSource)} in
 * the member's config user context, where processors find it through {@link HazelcastInstanceAware}
 * injection; nothing here makes a remote call.
 *
 * <h2>Keeping the rules copy current</h2>
 *
 * Three paths, ordered by the record version (a change is applied only if newer):
 *
 * <ol>
 *   <li>{@link GridRuleStore#put} pushes the new record to every member and waits, so a rule change
 *       is in force on every member before {@code put} returns (read-your-writes for callers);
 *   <li>an entry listener on the rules map catches changes made any other way;
 *   <li>on start (and so on join) the member loads the whole map.
 * </ol>
 *
 * Until the load has finished, a processor that misses a rule asks Hazelcast to retry rather than
 * answer "unknown rule" from an empty copy.
 */
public final class MemberContext implements LifecycleListener, HazelcastInstanceAware {
  /** The key of this context in the member config's user context. */
  public static final String USER_CONTEXT_KEY = "dev.sluice.memberContext";

  static final int MAX_INLINE_POLICIES = 4096;

  private final TimeSource timeSource;
  private final String rulesMapName;
  private final long minStateTtlMillis;
  private final ConcurrentHashMap<String, ResolvedRule> rules = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Integer, Policy> inlinePolicies = new ConcurrentHashMap<>();
  private volatile boolean rulesLoaded;
  private volatile @Nullable HazelcastInstance instance;

  MemberContext(TimeSource timeSource, String rulesMapName, long minStateTtlMillis) {
    this.timeSource = timeSource;
    this.rulesMapName = rulesMapName;
    this.minStateTtlMillis = minStateTtlMillis;
  }

  /** The member whose context {@link #of} found last, with that context. */
  private record Found(HazelcastInstance member, @Nullable MemberContext context) {}

  private static volatile @Nullable Found lastFound;

  /**
   * The context of a member, or null if it was not configured for Sluice. Every processor asks on
   * every decision, and a JVM almost always holds one member, so the last answer is kept (by
   * identity; with several members in one JVM it is simply looked up more often).
   */
  static @Nullable MemberContext of(HazelcastInstance member) {
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

  public TimeSource timeSource() {
    return timeSource;
  }

  /** See {@link SluiceHazelcast#MIN_STATE_TTL_MILLIS_PROPERTY}. */
  long minStateTtlMillis() {
    return minStateTtlMillis;
  }

  boolean rulesLoaded() {
    return rulesLoaded;
  }

  /** The live rule named {@code name} in the local copy, or null. */
  @Nullable ResolvedRule rule(String name) {
    ResolvedRule rule = rules.get(name);
    return rule == null || rule.policy() == null ? null : rule;
  }

  /**
   * Remembers an inline policy this member decided, by its state fingerprint, so that {@link
   * MostConsumedMergePolicy} can judge inline keys after a split brain. Bounded: past {@value
   * #MAX_INLINE_POLICIES} distinct fingerprints new ones are not remembered (their keys then merge
   * by latest update).
   */
  void rememberInline(int fingerprint, Policy policy) {
    Policy known = inlinePolicies.get(fingerprint);
    if (!policy.equals(known) && (known != null || inlinePolicies.size() < MAX_INLINE_POLICIES)) {
      inlinePolicies.put(fingerprint, policy);
    }
  }

  /** The inline policy last decided with this state fingerprint, or null. */
  @Nullable Policy inlinePolicy(int fingerprint) {
    return inlinePolicies.get(fingerprint);
  }

  /** Applies a record if it is newer than the one held. */
  void apply(RuleRecord record) {
    ResolvedRule next = ResolvedRule.of(record);
    rules.merge(record.name(), next, (old, neu) -> neu.version() > old.version() ? neu : old);
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.instance = hazelcastInstance;
  }

  @Override
  public void stateChanged(LifecycleEvent event) {
    if (event.getState() == LifecycleEvent.LifecycleState.STARTED) {
      loadRules();
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

  /**
   * A rule as processors use it: the policy with its algorithm built once, or the reason it cannot
   * be built (an algorithm this build does not have).
   */
  record ResolvedRule(
      @Nullable Policy policy,
      long version,
      @Nullable LimiterAlgorithm algorithm,
      int fingerprint,
      @Nullable String error) {

    static ResolvedRule of(RuleRecord record) {
      Policy policy = record.policy();
      if (policy == null) {
        return new ResolvedRule(null, record.version(), null, 0, null);
      }
      try {
        return new ResolvedRule(
            policy,
            record.version(),
            LimiterAlgorithm.of(policy),
            GridState.fingerprint(policy),
            null);
      } catch (RuntimeException e) {
        return new ResolvedRule(
            policy, record.version(), null, GridState.fingerprint(policy), e.getMessage());
      }
    }
  }
}
