package dev.sluice.core;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The named rules a limiter knows. In the grid a cluster-wide map with a local copy on every
 * member; in one JVM a concurrent map.
 *
 * <p>Changing a rule's limit takes effect on the next decision and keeps the counters; changing its
 * window or algorithm starts its keys afresh, since old state means nothing under new math.
 *
 * <p>A null argument is a bad request like any other: an {@link InvalidPolicyException} naming the
 * argument ({@code name} or {@code rule}), never a bare {@code NullPointerException}.
 */
public interface RuleStore {

  /**
   * The rule named {@code name}, if there is one.
   *
   * @throws InvalidPolicyException if {@code name} is not a rule name (null included)
   */
  Optional<Rule> find(String name);

  /**
   * {@link #find}, without blocking the caller: a store whose rules are elsewhere (a grid seen from
   * a client) answers when the read lands; one whose rules are here answers at once, as this
   * default does. A failure of the read fails the future; a bad name throws at once.
   */
  default CompletableFuture<Optional<Rule>> findAsync(String name) {
    Rule.checkName(name);
    try {
      return CompletableFuture.completedFuture(find(name));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The rule named {@code name}.
   *
   * @throws UnknownRuleException if there is none
   */
  default Rule get(String name) {
    return find(name).orElseThrow(() -> new UnknownRuleException(name));
  }

  /** Every rule, sorted by name. */
  Collection<Rule> all();

  /**
   * Adds or replaces a rule.
   *
   * @throws InvalidPolicyException naming {@code rule} if it is null
   */
  void put(Rule rule);

  /**
   * Removes a rule; returns whether there was one.
   *
   * @throws InvalidPolicyException if {@code name} is not a rule name (null included)
   */
  boolean remove(String name);
}
