package dev.sluice.core.decision;

import dev.sluice.core.Algorithm;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import dev.sluice.core.algorithm.NanoMath;
import org.jspecify.annotations.Nullable;

/**
 * A policy made ready to decide: its algorithm built once (one limit's, or a {@link
 * dev.sluice.core.algorithm.LimitSet} of several) and the fingerprint of its state's shape.
 *
 * <h2>Fingerprint</h2>
 *
 * A 32-bit hash of each limit's (algorithm, window, buckets for sliding_buckets, and limit and
 * burst for the rate algorithms), in order. Counts taken under one window mean nothing under
 * another, so a stored state whose fingerprint is not the policy's is carried over from the policy
 * that wrote it ({@link KeyDecision}). A window algorithm's changed limit keeps the fingerprint:
 * its counts mean the same under any limit, and {@code fit} keeps them. A rate algorithm's state is
 * a debt in nanoseconds of its own {@code T = window / limit}: kept under a lower rate it would
 * stand for fewer permits than were admitted (gcra 10 per second with 10 admitted, changed to 1 per
 * second, would let 9 more in at once), so its limit and burst are part of its shape and a change
 * carries the state over in permits.
 */
public final class CompiledPolicy {
  private final Policy policy;
  private final LimiterAlgorithm algorithm;
  private final int fingerprint;
  // Built on the first commit that charges: most policies never need it.
  private volatile @Nullable LimiterAlgorithm charging;

  private CompiledPolicy(Policy policy) {
    this.policy = policy;
    this.algorithm = LimiterAlgorithm.of(policy);
    this.fingerprint = fingerprint(policy);
  }

  public static CompiledPolicy of(Policy policy) {
    return new CompiledPolicy(policy);
  }

  public Policy policy() {
    return policy;
  }

  public LimiterAlgorithm algorithm() {
    return algorithm;
  }

  /**
   * This policy's algorithm counting every request, admitted or not ({@link
   * LimiterAlgorithm#charging}): how a reservation committed above its estimate charges the rest.
   */
  public LimiterAlgorithm charging() {
    LimiterAlgorithm built = charging;
    if (built == null) {
      built = LimiterAlgorithm.charging(policy);
      charging = built;
    }
    return built;
  }

  public int fingerprint() {
    return fingerprint;
  }

  /**
   * Whether the owner may lease this policy's permits: the policy allows it and it is not a shadow
   * policy (which never denies, so has nothing to save), nor a concurrency policy (each permit is
   * an entry with its own id, to be released by that id).
   */
  public boolean leases() {
    return policy.leases() == Policy.Leases.AUTO && !policy.shadow() && !policy.inFlight();
  }

  /** The most permits one request may ask for under this policy. */
  public long capacity() {
    return algorithm.capacity();
  }

  /**
   * Refuses a request that could never be admitted, before anything is counted: the one check every
   * runtime makes where it knows the policy. A shadow policy refuses nothing: it never denies,
   * whatever the cost, and answers such a request as the would-be denial it is ({@link
   * KeyDecision}), as envoyproxy/ratelimit's shadow mode does.
   *
   * @throws InvalidPolicyException naming {@code cost}
   */
  public void checkCost(long permits, PolicyRef ref) {
    if (permits > capacity() && !policy.shadow()) {
      throw new InvalidPolicyException(
          "cost",
          "asks for "
              + permits
              + " permits but the "
              + (ref instanceof PolicyRef.Named named ? "rule '" + named.rule() + "'" : "policy")
              + " never holds more than "
              + capacity());
    }
  }

  /**
   * {@link #checkCost} of every operation of {@code command} that takes permits: a command sent
   * whole refuses them all before anything is counted.
   */
  public void checkCosts(KeyCommand command) {
    for (KeyOp op : command.ops()) {
      if (op.kind() == KeyOp.Kind.ACQUIRE || op.kind() == KeyOp.Kind.RESERVE) {
        checkCost(op.permits(), command.ref());
      }
    }
  }

  /**
   * When the window an admission at {@code admittedAtNanos} was counted in ends: after that, its
   * receipt frees nothing ({@link KeyDecision}). The window is aligned to the epoch, as every
   * window algorithm's is, and of the policy's shortest limit where it has several (its permits
   * stop counting there first); for a concurrency policy it is the permit's own lifetime. The same
   * for every algorithm, so that a receipt means one thing whatever counts it: a permit given back
   * in the window it was admitted in, never after.
   *
   * <pre>
   *   fixed or sliding window of 1 min, admitted at 11:00:42.5 → its receipt frees until 11:01:00
   *   token bucket of 10/s (window 1 s), admitted at 12:00:00.3 → until 12:00:01
   *   concurrency, permitTtl 30 s, admitted at t                → until t + 30 s (its expiry)
   * </pre>
   */
  public long receiptWindowEndNanos(long admittedAtNanos) {
    if (policy.inFlight()) {
      return NanoMath.saturatedAdd(admittedAtNanos, policy.windowNanos());
    }
    long end = Long.MAX_VALUE;
    for (Limit limit : policy.limits()) {
      long window = limit.windowNanos();
      end =
          Math.min(
              end, NanoMath.saturatedAdd(Math.floorDiv(admittedAtNanos, window) * window, window));
    }
    return end;
  }

  /** The fingerprint of the shape of {@code policy}'s state; see the class comment. */
  public static int fingerprint(Policy policy) {
    int hash = 0;
    for (int i = 0; i < policy.limits().size(); i++) {
      Limit limit = policy.limits().get(i);
      int one = limit.algorithm().wireName().hashCode();
      one = one * 31 + Long.hashCode(limit.windowNanos());
      if (limit.algorithm() == Algorithm.SLIDING_BUCKETS) {
        one = one * 31 + limit.buckets();
      }
      if (limit.algorithm().hasBurst()) {
        one = (one * 31 + Long.hashCode(limit.limit())) * 31 + Long.hashCode(limit.burst());
      }
      hash = i == 0 ? one : hash * 961 + one;
    }
    // Murmur3's finalizer spreads nearby windows (1s vs 2s) over all 32 bits.
    hash ^= hash >>> 16;
    hash *= 0x85ebca6b;
    hash ^= hash >>> 13;
    hash *= 0xc2b2ae35;
    hash ^= hash >>> 16;
    return hash;
  }

  @Override
  public String toString() {
    return "CompiledPolicy{" + policy + '}';
  }
}
