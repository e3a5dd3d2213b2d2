package dev.sluice.node.resp;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Check;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The policies of {@code CL.THROTTLE} and {@code GCRA} calls: a gcra policy per parameter set, all
 * under one state name ({@link #STATE_NAME}), so that a key keeps one state whatever parameters it
 * is called with, as a Redis key does, and a call with other parameters carries it over ({@link
 * PolicyRef#inlineUnder}).
 *
 * <p>Leases are off: every answer is the key owner's, the numbers redis-cell would give. Policies
 * are kept once built (a client calls with the same few parameter sets again and again), up to
 * {@value #MAX_KEPT}.
 */
final class GcraPolicies {
  /** The state name of every key of the Redis port's keyspace. */
  static final String STATE_NAME = "redis";

  static final int MAX_KEPT = 4096;

  private record Parameters(long maxBurst, long perPeriod, long periodNanos) {}

  /** The last parameters asked for and their reference: a client repeats one set. */
  private record Last(long maxBurst, long perPeriod, long periodNanos, PolicyRef ref) {}

  private final Map<Parameters, PolicyRef> kept = new ConcurrentHashMap<>();
  private volatile @Nullable Last last;

  /**
   * The reference of gcra {@code perPeriod} per {@code periodNanos} with a burst of {@code
   * maxBurst}.
   *
   * @param argumentNames the command's name for a policy field ({@code window} becomes {@code
   *     period}), for the error of a parameter Sluice cannot run
   * @throws CommandError naming the argument that is out of Sluice's bounds
   */
  PolicyRef ref(
      long maxBurst, long perPeriod, long periodNanos, UnaryOperator<String> argumentNames) {
    Last hit = last;
    if (hit != null
        && hit.maxBurst() == maxBurst
        && hit.perPeriod() == perPeriod
        && hit.periodNanos() == periodNanos) {
      return hit.ref();
    }
    Parameters parameters = new Parameters(maxBurst, perPeriod, periodNanos);
    PolicyRef ref = kept.get(parameters);
    if (ref == null) {
      ref = build(maxBurst, perPeriod, periodNanos, argumentNames);
      if (kept.size() >= MAX_KEPT) {
        kept.clear();
      }
      kept.put(parameters, ref);
    }
    last = new Last(maxBurst, perPeriod, periodNanos, ref);
    return ref;
  }

  private static PolicyRef build(
      long maxBurst, long perPeriod, long periodNanos, UnaryOperator<String> argumentNames) {
    Policy policy;
    try {
      policy =
          Policy.builder()
              .algorithm(Algorithm.GCRA)
              .limit(perPeriod)
              .window(Duration.ofNanos(periodNanos))
              .burst(maxBurst)
              .leases(Policy.Leases.OFF)
              .build();
    } catch (InvalidPolicyException e) {
      String field = e.field();
      throw new CommandError(
          "ERR " + argumentNames.apply(field) + e.getMessage().substring(field.length()));
    }
    return PolicyRef.inlineUnder(STATE_NAME, policy);
  }

  /**
   * The call that takes {@code tokens} from {@code key} under {@code ref}, answered as redis-cell
   * answers ({@code limited limit remaining retry-after reset}, seconds rounded by {@code
   * seconds}). More tokens than the {@code limit} can ever hold take nothing: {@code 1 limit
   * remaining -1 reset}.
   */
  static Step decide(
      PolicyRef ref, String key, long tokens, long limit, LongUnaryOperator seconds) {
    if (tokens > limit) {
      return new Step.Decide(
          new Check(ref, key, 0),
          peek ->
              Reply.integers(
                  1, limit, peek.remaining(), -1, seconds.applyAsLong(peek.resetAfterNanos())));
    }
    return new Step.Decide(
        new Check(ref, key, tokens),
        decision ->
            Reply.integers(
                decision.allowed() ? 0 : 1,
                decision.limit(),
                decision.remaining(),
                decision.allowed() ? -1 : seconds.applyAsLong(decision.retryAfterNanos()),
                seconds.applyAsLong(decision.resetAfterNanos())));
  }
}
