package dev.sluice.core.grid;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.map.listener.MapClearedListener;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.rules.RuleCache;
import java.util.UUID;

/**
 * The cluster's rule changes, pushed to a grid runtime's {@link RuleCache}: every change of a
 * rule's entry in the rules map outdates that rule ({@link RuleCache#invalidate}); clearing the
 * map, and a client's reconnection (events may have been missed meanwhile), outdate them all.
 */
final class RuleEvents
    implements EntryAddedListener<String, Object>,
        EntryUpdatedListener<String, Object>,
        EntryRemovedListener<String, Object>,
        EntryEvictedListener<String, Object>,
        EntryExpiredListener<String, Object>,
        MapClearedListener {
  private final RuleCache rules;

  private RuleEvents(RuleCache rules) {
    this.rules = rules;
  }

  /**
   * Subscribes {@code rules} to the rules map of {@code hazelcast} and, on a client, to its
   * reconnections (calls to the cluster: made once the runtime has reached it); returns how to
   * unsubscribe.
   */
  static Runnable subscribe(HazelcastInstance hazelcast, RuleCache rules) {
    IMap<String, Object> map = hazelcast.getMap(GridNames.RULES_MAP);
    UUID registration = map.addEntryListener(new RuleEvents(rules), false);
    UUID reconnects =
        GridWiring.isMember(hazelcast)
            ? null
            : hazelcast
                .getLifecycleService()
                .addLifecycleListener(
                    event -> {
                      if (event.getState() == LifecycleState.CLIENT_CONNECTED) {
                        rules.invalidateAll();
                      }
                    });
    return () -> {
      try {
        map.removeEntryListener(registration);
        if (reconnects != null) {
          hazelcast.getLifecycleService().removeLifecycleListener(reconnects);
        }
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
