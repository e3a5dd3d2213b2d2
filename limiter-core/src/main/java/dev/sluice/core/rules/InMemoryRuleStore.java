package dev.sluice.core.rules;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Rules in one JVM: a concurrent sorted map, so that {@link #all()} is sorted by name without
 * sorting on every call and lookups never block. Thread-safe.
 */
public final class InMemoryRuleStore implements RuleStore {
  private final ConcurrentSkipListMap<String, Rule> rules = new ConcurrentSkipListMap<>();

  public InMemoryRuleStore() {}

  /** A store holding {@code rules}; a later rule replaces an earlier one of the same name. */
  public static InMemoryRuleStore of(Collection<Rule> rules) {
    InMemoryRuleStore store = new InMemoryRuleStore();
    rules.forEach(store::put);
    return store;
  }

  @Override
  public Optional<Rule> find(String name) {
    return Optional.ofNullable(rules.get(Rule.checkName(name)));
  }

  @Override
  public Collection<Rule> all() {
    return List.copyOf(rules.values());
  }

  @Override
  public void put(Rule rule) {
    rules.put(Rule.require(rule).name(), rule);
  }

  @Override
  public boolean remove(String name) {
    return rules.remove(Rule.checkName(name)) != null;
  }

  /**
   * Makes the store hold exactly {@code newRules}, as a reloaded rules file says: rules not in it
   * are removed, the rest added or replaced. Readers see each rule change atomically, not the whole
   * set at once.
   */
  public void replaceAll(Collection<Rule> newRules) {
    Set<String> names = new HashSet<>();
    for (Rule rule : newRules) {
      names.add(rule.name());
      put(rule);
    }
    rules.keySet().retainAll(names);
  }

  @Override
  public String toString() {
    return "InMemoryRuleStore" + rules.keySet();
  }
}
