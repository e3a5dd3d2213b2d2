package dev.sluice.client;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.map.listener.MapClearedListener;
import dev.sluice.core.grid.wire.GridNames;
import java.util.UUID;

/**
 * The cluster's rule changes, pushed to a client's rules cache: every change of a rule's entry in
 * the rules map outdates that rule ({@link CachedRuleStore#invalidate}), and clearing the map
 * outdates them all.
 */
final class RuleEvents
    implements EntryAddedListener<String, Object>,
        EntryUpdatedListener<String, Object>,
        EntryRemovedListener<String, Object>,
        EntryEvictedListener<String, Object>,
        EntryExpiredListener<String, Object>,
        MapClearedListener {
  private final CachedRuleStore rules;

  private RuleEvents(CachedRuleStore rules) {
    this.rules = rules;
  }

  /**
   * Subscribes {@code rules} to the rules map of {@code hazelcast} (a call to the cluster: made
   * once the client has reached it); returns how to unsubscribe.
   */
  static Runnable subscribe(HazelcastInstance hazelcast, CachedRuleStore rules) {
    IMap<String, Object> map = hazelcast.getMap(GridNames.RULES_MAP);
    UUID registration = map.addEntryListener(new RuleEvents(rules), false);
    return () -> {
      try {
        map.removeEntryListener(registration);
      } catch (RuntimeException e) {
        // The instance is already shut down: nothing left to unsubscribe from.
      }
    };
  }

  @Override
  public void entryAdded(EntryEvent<String, Object> event) {
    rules.invalidate(event.getKey());
  }

  @Override
  public void entryUpdated(EntryEvent<String, Object> event) {
    rules.invalidate(event.getKey());
  }

  @Override
  public void entryRemoved(EntryEvent<String, Object> event) {
    rules.invalidate(event.getKey());
  }

  @Override
  public void entryEvicted(EntryEvent<String, Object> event) {
    rules.invalidate(event.getKey());
  }

  @Override
  public void entryExpired(EntryEvent<String, Object> event) {
    rules.invalidate(event.getKey());
  }

  @Override
  public void mapCleared(MapEvent event) {
    rules.invalidateAll();
  }
}
