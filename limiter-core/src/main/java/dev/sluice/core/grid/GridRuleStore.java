package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.member.RulePushTask;
import dev.sluice.core.grid.member.RuleUpdateProcessor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.RuleRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The named rules of a Sluice cluster: the map {@value GridNames#RULES_MAP} of {@link RuleRecord}s,
 * from a member or a client alike. A grid that cannot answer fails a call with {@link
 * dev.sluice.core.LimiterUnavailableException} ({@link GridOutages}).
 *
 * <p>A put or remove bumps the rule's version in one atomic step on the rules map, then pushes the
 * new record to every member's local copy and waits ({@link RulePushTask}): when it returns, every
 * member decides with the new rule. A changed limit applies to the next decision and keeps the
 * counters; a changed window or algorithm starts the rule's keys afresh (see {@link
 * dev.sluice.core.grid.wire.StateFormat}).
 *
 * <p>{@link #find} on a member reads the member's local copy once it is loaded: that copy is what
 * this member's processors decide with, and a put returns only after every member's copy has the
 * new record, so it is as fresh as the map for anyone who waited for the put. Reading the map
 * instead cost every named REST check a second grid operation, a blocking invocation before the
 * decision's own. Clients, and members still loading, read the map (a client may put a near cache
 * on it). {@link #all} and {@link #record} always read the map, the source of truth.
 */
public final class GridRuleStore implements RuleStore {
  private final HazelcastInstance hazelcast;
  private final Supplier<IMap<String, RuleRecord>> map;
  private final @Nullable MemberContext localMember;

  public GridRuleStore(HazelcastInstance hazelcast) {
    this(
        hazelcast,
        () -> hazelcast.getMap(GridNames.RULES_MAP),
        GridWiring.isMember(hazelcast) ? MemberContext.of(hazelcast) : null);
  }

  /**
   * @param map the rules map, asked for on every use: a grid runtime's client makes its proxy only
   *     once it has reached the cluster, and fails fast before ({@link GridWiring})
   */
  GridRuleStore(
      HazelcastInstance hazelcast,
      Supplier<IMap<String, RuleRecord>> map,
      @Nullable MemberContext localMember) {
    this.hazelcast = hazelcast;
    this.map = map;
    this.localMember = localMember;
  }

  @Override
  public Optional<Rule> find(String name) {
    Rule.checkName(name);
    MemberContext member = localMember;
    if (member != null && member.rulesLoaded()) {
      return toRule(member.record(name));
    }
    try {
      return toRule(map.get().get(name));
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  /**
   * {@inheritDoc} A member with its copy loaded answers at once; otherwise one asynchronous read of
   * the map, answered on Hazelcast's callback executor.
   */
  @Override
  public CompletableFuture<Optional<Rule>> findAsync(String name) {
    Rule.checkName(name);
    MemberContext member = localMember;
    if (member != null && member.rulesLoaded()) {
      return CompletableFuture.completedFuture(toRule(member.record(name)));
    }
    try {
      return GridOutages.translated(
          map.get().getAsync(name).toCompletableFuture().thenApply(GridRuleStore::toRule));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(GridOutages.translated(e));
    }
  }

  private static Optional<Rule> toRule(@Nullable RuleRecord record) {
    return record == null || record.isRemoved() ? Optional.empty() : Optional.of(record.toRule());
  }

  /** The stored record of a rule, tombstones included; for tests and tooling. */
  public Optional<RuleRecord> record(String name) {
    Rule.checkName(name);
    try {
      return Optional.ofNullable(map.get().get(name));
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  @Override
  public Collection<Rule> all() {
    Collection<RuleRecord> records;
    try {
      records = map.get().values();
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
    List<Rule> rules = new ArrayList<>();
    for (RuleRecord record : records) {
      if (!record.isRemoved()) {
        rules.add(record.toRule());
      }
    }
    rules.sort(Comparator.comparing(Rule::name));
    return rules;
  }

  @Override
  public void put(Rule rule) {
    Rule.require(rule);
    try {
      push(map.get().executeOnKey(rule.name(), new RuleUpdateProcessor(rule.policy())));
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  @Override
  public boolean remove(String name) {
    Rule.checkName(name);
    try {
      RuleRecord before = map.get().get(name);
      if (before == null || before.isRemoved()) {
        return false;
      }
      push(map.get().executeOnKey(name, new RuleUpdateProcessor(null)));
      return true;
    } catch (RuntimeException e) {
      throw GridOutages.translated(e);
    }
  }

  private void push(RuleRecord record) {
    Collection<Future<Boolean>> acks =
        hazelcast
            .getExecutorService(GridNames.EXECUTOR)
            .submitToAllMembers(new RulePushTask(record))
            .values();
    for (Future<Boolean> ack : acks) {
      try {
        ack.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while pushing rule " + record.name(), e);
      } catch (ExecutionException e) {
        // A member that left meanwhile will load the rules when it comes back; the entry listener
        // covers the rest. The rule is stored either way.
      }
    }
  }
}
