package dev.sluice.core;

import java.util.Collection;
import java.util.Optional;

/**
 * The named rules a limiter knows. In the grid a cluster-wide map with a local copy on every
 * member; in one JVM a concurrent map.
 *
 * <p>Changing a rule's limit takes effect on the next decision and keeps the counters; changing its
 * window or algorithm starts its keys afresh, since old state means nothing under new math.
 */
public interface RuleStore {

  Optional<Rule> find(String name);

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

  /** Adds or replaces a rule. */
  void put(Rule rule);

  /** Removes a rule; returns whether there was one. */
  boolean remove(String name);
}
