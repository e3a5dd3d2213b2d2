package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.merge.MergingEntry;
import com.hazelcast.spi.merge.MergingExpirationTime;
import com.hazelcast.spi.merge.MergingValue;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.StateKey;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import org.jspecify.annotations.Nullable;

/**
 * How the state map heals after a split brain: per key, keep the side that has consumed more, so a
 * merge never forgets an admission.
 *
 * <h2>Why not Hazelcast's built-in policies</h2>
 *
 * During a split each side keeps deciding on its own copy of a key. When the sides meet again,
 * Hazelcast hands the owner two states for the key and asks which to keep. {@code
 * LatestUpdateMergePolicy} keeps the side that wrote last, which may be the side that admitted
 * <em>less</em> (side A admits 40 by t=10 s, side B admits 3 at t=11 s: B wins and 37 admissions
 * are forgotten, so the key grants them again). {@code PutIfAbsentMergePolicy} (the map default)
 * keeps whatever the larger side had, with the same flaw. A rate limiter must err toward denying.
 *
 * <h2>The rule</h2>
 *
 * Both states are judged the way a request would see them: a 0-permit peek at the owning member's
 * {@code now}, with the key's algorithm and policy. The state with fewer permits {@code remaining}
 * is kept; on a tie, the one with the later {@code resetAfter} (it needs longer to be back to full
 * capacity, so it remembers more). One rule serves all seven algorithms because every algorithm
 * already defines what a peek reports. Example, sliding_window 100 per minute, at t = 30 s of a
 * window:
 *
 * <pre>
 *   side A: prev 60, cur 10   estimate floor(60 × 0.5) + 10 = 40   remaining 60
 *   side B: prev 0,  cur 55   estimate 55                          remaining 45   ← kept
 * </pre>
 *
 * Keeping one side rather than adding them means the key may still admit what the lighter side
 * admitted during the split: the merged state is at least as consumed as the more-consumed side,
 * which is the most a merge can know (the sides' shared history before the split cannot be told
 * apart from what each added after it, so a sum would double-count it).
 *
 * <h2>Finding the policy</h2>
 *
 * A rule key ({@code rule|subject}) resolves through the member's local rules copy ({@link
 * MemberContext}), with no remote call. An inline key names its policy's identity ({@code
 * ~identity|subject}); the member remembers the inline policies it has recently decided by
 * identity, and uses that. A key under a state name ({@code @name|subject}) keeps its writer with
 * each state: the merging side's policy judges both. A state whose fingerprint is not the current
 * policy's would be ignored by the next decision anyway, so the other side is kept. When no policy
 * can be found (an inline policy this member never saw, a rule deleted meanwhile) the later-written
 * state is kept (judged by its expiration time, as the map keeps no per-entry update times; without
 * a TTL, the existing one); docs/reliability.md lists this limit.
 *
 * <p>Serialized through {@code SluiceDataSerializableFactory} like every Sluice type. It holds no
 * fields: the owner's {@link MemberContext} is injected where the merge runs.
 */
public final class MostConsumedMergePolicy
    implements SplitBrainMergePolicy<StateValue, MergingEntry<Object, StateValue>, Object>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware {
  private transient volatile @Nullable MemberContext context;

  /** For Hazelcast, which creates the policy by class name and for deserialization. */
  public MostConsumedMergePolicy() {}

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public @Nullable Object merge(
      @Nullable MergingEntry<Object, StateValue> merging,
      @Nullable MergingEntry<Object, StateValue> existing) {
    if (merging == null) {
      return existing == null ? null : existing.getRawValue();
    }
    if (existing == null) {
      return merging.getRawValue();
    }
    return keepMerging(merging, existing) ? merging.getRawValue() : existing.getRawValue();
  }

  private boolean keepMerging(
      MergingEntry<Object, StateValue> merging, MergingEntry<Object, StateValue> existing) {
    StoredState mergingState = StateValue.stored(merging.getDeserializedValue());
    StoredState existingState = StateValue.stored(existing.getDeserializedValue());
    if (mergingState == null || existingState == null) {
      return existingState == null;
    }
    MemberContext member = context;
    Object key = merging.getKey();
    Resolved resolved =
        member == null || !(key instanceof String stateKey)
            ? null
            : resolve(member, stateKey, mergingState, existingState);
    if (resolved == null) {
      return laterWritten(merging, existing);
    }
    boolean mergingCurrent = mergingState.fingerprint() == resolved.fingerprint();
    boolean existingCurrent = existingState.fingerprint() == resolved.fingerprint();
    if (mergingCurrent != existingCurrent) {
      return mergingCurrent;
    }
    if (!mergingCurrent) {
      return laterWritten(merging, existing);
    }
    return moreConsumed(
        resolved.algorithm(), mergingState, existingState, member.timeSource().nowNanos());
  }

  /**
   * Whether {@code a} is strictly more consumed than {@code b}, by the rule in the class comment.
   */
  static boolean moreConsumed(
      LimiterAlgorithm algorithm, StoredState a, StoredState b, long nowNanos) {
    Decision da = peek(algorithm, a, nowNanos);
    Decision db = peek(algorithm, b, nowNanos);
    return da.remaining() != db.remaining()
        ? da.remaining() < db.remaining()
        : da.resetAfterNanos() > db.resetAfterNanos();
  }

  /**
   * Whether {@code merging} was written later. A write with a TTL sets it from the policy, so with
   * the same policy the later expiration is the later write. (The map keeps no per-entry update
   * times: they cost memory on every key.) A rule's state written once the whole cluster sweeps has
   * no TTL (docs/grid.md, "Cleanup"): neither side is later, and the existing one is kept.
   */
  private static boolean laterWritten(
      MergingValue<StateValue> merging, MergingValue<StateValue> existing) {
    return merging instanceof MergingExpirationTime a
        && existing instanceof MergingExpirationTime b
        && a.getExpirationTime() > b.getExpirationTime();
  }

  private static Decision peek(LimiterAlgorithm algorithm, StoredState state, long nowNanos) {
    return algorithm.apply(algorithm.fit(state.values().clone()), nowNanos, 0);
  }

  private static @Nullable Resolved resolve(
      MemberContext member, String stateKey, StoredState one, StoredState other) {
    int bar = stateKey.indexOf('|');
    if (bar < 0) {
      return null;
    }
    String prefix = stateKey.substring(0, bar);
    try {
      CompiledPolicy compiled;
      if (StateKey.isUnderName(stateKey)) {
        Policy policy = one.writer() != null ? one.writer() : other.writer();
        if (policy == null) {
          return null;
        }
        compiled = CompiledPolicy.of(policy);
      } else if (StateKey.isInline(stateKey)) {
        Policy policy = member.inlinePolicy(prefix);
        if (policy == null) {
          return null;
        }
        compiled = CompiledPolicy.of(policy);
      } else {
        compiled = member.rules().resolve(PolicyRef.rule(prefix));
      }
      return new Resolved(compiled.algorithm(), compiled.fingerprint());
    } catch (RuntimeException e) {
      return null; // a rule deleted meanwhile, or a policy this build cannot run
    }
  }

  private record Resolved(LimiterAlgorithm algorithm, int fingerprint) {}

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.MOST_CONSUMED_MERGE_POLICY;
  }

  @Override
  public void writeData(ObjectDataOutput out) {}

  @Override
  public void readData(ObjectDataInput in) {}
}
