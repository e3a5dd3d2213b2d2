package dev.sluice.client;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.map.listener.MapClearedListener;
import dev.sluice.core.Check;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/** The Hazelcast side of a {@link SluiceClient}: the client's settings and the rule events. */
final class GridSupport {
  private GridSupport() {}

  /**
   * The Hazelcast client settings of a Sluice client. Nothing here may block a caller forever:
   *
   * <ul>
   *   <li>all-members routing (smart routing): each key's request goes straight to its owner;
   *   <li>async start: building the client does not wait for the cluster past {@code
   *       connectTimeout}; the limiter is set up through a first connection, so without one the
   *       build fails ({@link SluiceClient.Builder#build()}); after it, decisions follow the
   *       failure policy while the grid is away;
   *   <li>async reconnect with a backoff capped at one second: a returning grid is found quickly
   *       and calls meanwhile fail fast ({@code HazelcastClientOfflineException});
   *   <li>an invocation timeout of a few seconds, so a call the client gave up on (after the call
   *       timeout) does not hold resources for Hazelcast's default two minutes.
   * </ul>
   */
  static ClientConfig clientConfig(SluiceClient.Builder options) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(options.clusterName);
    config
        .getNetworkConfig()
        .setAddresses(
            options.addresses.isEmpty()
                ? List.of("127.0.0.1:5701")
                : List.copyOf(options.addresses));
    config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
    config
        .getConnectionStrategyConfig()
        .setAsyncStart(true)
        .setReconnectMode(ReconnectMode.ASYNC)
        .getConnectionRetryConfig()
        .setInitialBackoffMillis(100)
        .setMaxBackoffMillis(1_000)
        .setClusterConnectTimeoutMillis(-1);
    long invocationSeconds = Math.max(2, options.callTimeout.toSeconds() * 2 + 1);
    config.setProperty(
        "hazelcast.client.invocation.timeout.seconds", Long.toString(invocationSeconds));
    SluiceHazelcast.configure(config);
    options.clientConfigCustomizer.accept(config);
    return config;
  }

  /** Starts the Hazelcast client and waits up to {@code connectTimeout} for a first connection. */
  static HazelcastInstance start(ClientConfig config, Duration connectTimeout) {
    CountDownLatch connected = new CountDownLatch(1);
    config.addListenerConfig(
        new ListenerConfig(
            (LifecycleListener)
                event -> {
                  if (event.getState() == LifecycleState.CLIENT_CONNECTED) {
                    connected.countDown();
                  }
                }));
    HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
    try {
      connected.await(connectTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return client;
  }

  /**
   * Sends one decision that consumes nothing (an inline policy, 0 permits) through every layer
   * before the first real one when {@code limiter} is a grid limiter: the first invocation pays for
   * class loading, serializer set-up and connections to the owner, which can exceed a 50 ms call
   * timeout and open the breaker for the application's first second. Waits at most {@code timeout};
   * failures are ignored (the grid may not be there yet).
   */
  static void warmUp(RateLimiter limiter, Duration timeout) {
    if (!(limiter instanceof GridRateLimiter grid) || timeout.isZero()) {
      return;
    }
    try {
      // Both paths a call takes: the timed one of single checks, the batched one of the rest.
      for (int i = 0; i < 3; i++) {
        Check warmUp = Check.inline(WARM_UP_POLICY, "sluice-client-warm-up-" + i, 0);
        grid.tryAcquire(warmUp, timeout);
        grid.tryAcquireAsync(warmUp)
            .toCompletableFuture()
            .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // Not connected yet: the first real calls follow the failure policy until it is.
    }
  }

  private static final Policy WARM_UP_POLICY = Policy.of(1, Duration.ofSeconds(1));

  /**
   * Subscribes {@code rules} to the changes of the rules map when {@code limiter} is a grid limiter
   * (over a client or an embedded member), and to reconnections; returns how to unsubscribe, or
   * {@code null} for other limiters, whose rule changes go through {@link SluiceClient#rules()}.
   */
  static @Nullable Runnable listenToRules(RateLimiter limiter, CachedRuleStore rules) {
    if (!(limiter instanceof GridRateLimiter grid)) {
      return null;
    }
    HazelcastInstance hazelcast = grid.hazelcast();
    IMap<String, Object> map = hazelcast.getMap(SluiceHazelcast.RULES_MAP);
    UUID entries = map.addEntryListener(new RuleEvents(rules), false);
    UUID lifecycle =
        hazelcast
            .getLifecycleService()
            .addLifecycleListener(
                event -> {
                  if (event.getState() == LifecycleState.CLIENT_CONNECTED) {
                    rules.invalidateAll();
                  }
                });
    return () -> {
      try {
        map.removeEntryListener(entries);
        hazelcast.getLifecycleService().removeLifecycleListener(lifecycle);
      } catch (RuntimeException e) {
        // The instance is already shut down: nothing left to unsubscribe from.
      }
    };
  }

  /** Every change of a rule's entry invalidates that rule. */
  private static final class RuleEvents
      implements EntryAddedListener<String, Object>,
          EntryUpdatedListener<String, Object>,
          EntryRemovedListener<String, Object>,
          EntryEvictedListener<String, Object>,
          EntryExpiredListener<String, Object>,
          MapClearedListener {
    private final CachedRuleStore rules;

    RuleEvents(CachedRuleStore rules) {
      this.rules = rules;
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
}
