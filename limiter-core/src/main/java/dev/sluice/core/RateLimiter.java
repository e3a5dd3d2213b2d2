package dev.sluice.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether requests may proceed. The one interface every runtime implements: {@code
 * LocalRateLimiter} in one JVM, the grid through an embedded member or a Hazelcast client, and the
 * client SDK's decorators over those. One contract suite checks them all.
 *
 * <p>Keys ("subjects") are any UTF-8 string up to 512 bytes: a user id, an IP, an API key. Permits
 * ("cost") are at least 0; 0 reports the state without consuming. Asking for more than the rule can
 * ever hold is an {@link InvalidPolicyException}, not a denial forever.
 */
public interface RateLimiter {

  /** Takes one permit from {@code key} under the named rule. */
  default Decision tryAcquire(String rule, String key) {
    return tryAcquire(rule, key, 1);
  }

  /**
   * Takes {@code permits} from {@code key} under the named rule.
   *
   * @throws UnknownRuleException if no rule has that name
   * @throws InvalidPolicyException if the key or permits are out of bounds
   */
  Decision tryAcquire(String rule, String key, long permits);

  /** Takes {@code permits} from {@code key} under an inline policy (redis-cell style). */
  Decision tryAcquire(Policy policy, String key, long permits);

  CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits);

  CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits);

  /**
   * Decides every check; the answers are in the order of the checks. Checks on the same key are
   * decided in order, each seeing the ones before it.
   */
  List<Decision> tryAcquireAll(List<Check> checks);

  CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks);

  /** The key's state as a request for 0 permits would see it, consuming nothing. */
  Decision peek(String rule, String key);

  /** Forgets the key's state: it is back to full capacity. */
  void reset(String rule, String key);

  /** The named rules this limiter decides with. */
  RuleStore rules();
}
