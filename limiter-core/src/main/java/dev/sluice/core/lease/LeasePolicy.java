package dev.sluice.core.lease;

import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.LeaseAsk;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Which keys a lease holder asks leases for, how many permits, and when it renews one ahead of its
 * end: the holder's half of the lease policy, one per holder ({@link LeaseHolder}). The owner's
 * half, what it grants to an ask, is {@link KeyDecision}'s; the exactness of a lease is neither's
 * concern (every grant is counted at the owner before it is answered from, docs/algorithms.md,
 * "Leases"), so a policy can only move where requests are decided, never what is admitted.
 *
 * <p>Policies are chosen in the lease-policy simulator (benchmarks, {@code
 * dev.sluice.bench.lease.LeaseSimulator}), which replays traces through holders and an owner
 * running this code on a virtual clock; docs/decisions/lease-policy.md says which one is the
 * default and why. Implementations are thread-safe.
 */
public interface LeasePolicy {

  /**
   * What to ask the owner of {@code stateKey} to lease along with a request for {@code permits} at
   * {@code nowNanos}; {@link LeaseAsk#NONE} for no lease. Counts the request. An ask starts one on
   * the key, which {@link #askEnded} (or {@link Key#askEnded}) ends: the policy asks one at a time.
   *
   * @param windowLeaseNanos how long a lease to the end of the window lasts at most on the key's
   *     policy as known here ({@link dev.sluice.core.algorithm.LimiterAlgorithm#windowLeaseNanos});
   *     0 where it has none or the policy is not known here
   * @param closing whether the holder is closing: then no lease is asked for
   * @param shortLeaseNanos how long a short lease lasts at most on the key's policy as known here
   *     ({@link dev.sluice.core.Policy#maxLeaseNanos}), the longest of any policy where it is not
   */
  LeaseAsk wanted(
      String stateKey,
      long permits,
      long nowNanos,
      boolean closing,
      long windowLeaseNanos,
      long shortLeaseNanos);

  /**
   * What this policy keeps of {@code stateKey}, or null if it keeps nothing: a lease holds it, so
   * that an answer from the lease counts in it without another lookup.
   */
  @Nullable Key key(String stateKey);

  /** The ask for a lease of {@code stateKey} came back or failed: the next request may ask. */
  default void askEnded(String stateKey) {
    Key key = key(stateKey);
    if (key != null) {
      key.askEnded();
    }
  }

  /**
   * Whether an ask is on its way at {@code nowNanos}: one whose answer has neither come back nor
   * failed, sent recently enough that it may still come (a closing holder waits for it).
   */
  boolean asking(long nowNanos);

  /** How many keys this policy keeps something of now: its memory, for the simulator. */
  int keysTracked();

  /** What a policy keeps of one key, held by the key's lease. Thread-safe. */
  interface Key {
    /**
     * A lease answered a request for the key at {@code nowNanos} here, without a round trip; {@code
     * endsWithItsWindow}: from a lease to the end of its window.
     */
    void answeredLocally(long nowNanos, boolean endsWithItsWindow);

    /**
     * The ask for the next lease of the key, sent ahead of the current lease's end for requests of
     * {@code permitsPerRequest} permits (an acquire of no permits carries it); {@link
     * LeaseAsk#NONE} when an ask is on its way already. A renewal starts an ask on the key.
     */
    LeaseAsk renewal(long nowNanos, long permitsPerRequest);

    /** The ask on its way came back (with or without a lease) or failed. */
    void askEnded();
  }

  /** Makes a holder's policy. */
  @FunctionalInterface
  interface Factory {
    /**
     * @param leased whether the holder holds a lease of a state key (what a policy keeps of such a
     *     key must not be forgotten: the lease's answers count in it)
     */
    LeasePolicy create(Predicate<String> leased);
  }

  /**
   * The policy of four kinds of keys (a burst, warm, steady or quiet key) and three kinds of grant
   * (short or paced, to the end of the window, either), {@link LeaseDemand}.
   */
  Factory KINDS = LeaseDemand::new;

  /** The policy holders use unless told otherwise. */
  Factory DEFAULT = KINDS;
}
