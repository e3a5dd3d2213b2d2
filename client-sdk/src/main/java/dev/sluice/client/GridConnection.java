package dev.sluice.client;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.grid.GridRateLimiter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A client's link to its grid, followed in the background: what the client's {@link GridState} and
 * the gauge {@code sluice_client_grid_state} say, and what is done each time the link is made.
 *
 * <h2>Starting without the grid</h2>
 *
 * Nothing here waits on the caller's thread. When the grid limiter can first reach the cluster
 * ({@link GridRateLimiter#ready()}), a background thread warms the decision paths up and waits for
 * the grid limiter to subscribe its rules cache to the cluster's rule changes and read every rule
 * into it ({@link GridRateLimiter#rulesCopied()}); only then is the state {@link
 * GridState#CONNECTED}. Until then every decision follows the failure policy (the grid limiter
 * fails fast while it cannot reach the cluster). {@link #awaitConnected} lets {@code build()} wait
 * a bounded time for it, so that a grid that is up decides an application's first call.
 *
 * <h2>After that</h2>
 *
 * The Hazelcast client reconnects by itself (the grid limiter then outdates its rules cache, since
 * events may have been missed). Over a Hazelcast client, a {@link GridProbe} tells a connected grid
 * that answers from one that hangs.
 */
final class GridConnection implements AutoCloseable {
  /** The gauge of the state: one time series per state, 1 for the current one. */
  static final String STATE_GAUGE = "sluice.client.grid.state";

  private static final Policy WARM_UP_POLICY = Policy.of(1, Duration.ofSeconds(1));

  private final GridRateLimiter grid;
  private final Backend transport;
  private final Duration warmUpTimeout;
  private final @Nullable GridProbe probe;
  private final CountDownLatch connectedOnce = new CountDownLatch(1);
  private volatile boolean linked;
  private volatile boolean connected;
  private volatile boolean closed;
  private final @Nullable UUID lifecycle;

  /**
   * @param transport how the client's commands travel to the grid (batching over the grid's
   *     storage), which the warm-up sends through
   * @param warmUpTimeout the most the warm-up waits for each of its calls
   */
  GridConnection(
      GridRateLimiter grid,
      Backend transport,
      Duration callTimeout,
      Duration warmUpTimeout,
      MeterRegistry registry) {
    this.grid = grid;
    this.transport = transport;
    this.warmUpTimeout = warmUpTimeout;
    HazelcastInstance hazelcast = grid.hazelcast();
    boolean client = !(hazelcast.getLocalEndpoint() instanceof com.hazelcast.cluster.Member);
    this.probe = client ? new GridProbe(grid, callTimeout, System::nanoTime) : null;
    this.connected = !client;
    this.lifecycle =
        client
            ? hazelcast
                .getLifecycleService()
                .addLifecycleListener(
                    event -> {
                      if (event.getState() == LifecycleState.CLIENT_CONNECTED) {
                        connected = true;
                      } else if (event.getState() == LifecycleState.CLIENT_DISCONNECTED) {
                        connected = false;
                      }
                    })
            : null;
    for (GridState state : GridState.values()) {
      Gauge.builder(STATE_GAUGE, () -> state() == state ? 1 : 0)
          .description("The client's link to the grid: 1 for the state it is in, 0 for the others")
          .tag("state", state.wireName())
          .register(registry);
    }
    grid.ready()
        .thenRunAsync(
            this::link,
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-grid-link");
              thread.setDaemon(true);
              thread.start();
            });
  }

  /** The link as it is now. */
  GridState state() {
    if (closed) {
      return GridState.CLOSED;
    }
    if (!linked) {
      return GridState.CONNECTING;
    }
    if (!connected) {
      return GridState.DISCONNECTED;
    }
    if (probe != null && !probe.answering()) {
      return GridState.UNRESPONSIVE;
    }
    return GridState.CONNECTED;
  }

  /**
   * Whether the grid is known not to answer now: linked once, and disconnected since. Before the
   * first link nothing is known (the client may be connected while the paths warm up, as a
   * client-mode node is when it loads its rules file), so a lookup asks and waits at most its
   * timeout rather than failing at once.
   */
  boolean offline() {
    return linked && !connected;
  }

  /** Waits at most {@code timeout} for the first link; returns whether it was made. */
  boolean awaitConnected(Duration timeout) {
    try {
      return connectedOnce.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    closed = true;
    if (probe != null) {
      probe.close();
    }
    if (lifecycle != null) {
      try {
        grid.hazelcast().getLifecycleService().removeLifecycleListener(lifecycle);
      } catch (RuntimeException e) {
        // The instance is already shut down: nothing left to unsubscribe from.
      }
    }
  }

  /** The first link: warm up, then connected. */
  private void link() {
    if (closed) {
      return;
    }
    warmUp();
    awaitRules();
    connected = true;
    linked = true;
    connectedOnce.countDown();
  }

  /**
   * Waits (at most the warm-up timeout) for the copy of every rule: a client that says it is
   * connected knows its rules, so its first denials can be cached and its failure policy answers
   * report the rule's limit.
   */
  private void awaitRules() {
    try {
      grid.rulesCopied().get(warmUpTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Not read yet: lookups read each rule when it is first needed.
    }
  }

  /**
   * Sends decisions that consume nothing (an inline policy, 0 permits) through both paths a call
   * takes, the synchronous one of single checks (on the caller's thread, within a deadline) and the
   * lanes of the rest, before the first real one: the first invocation pays for class loading,
   * serializer set-up and connections to the owner, which can exceed a 50 ms call timeout and open
   * the breaker for the application's first second. They go through the transport, below the
   * breaker, whose state they must not change. Failures are ignored (the grid may be gone again).
   */
  private void warmUp() {
    try {
      for (int i = 0; i < 3; i++) {
        KeyCommand warmUp =
            KeyCommand.of(
                PolicyRef.inline(WARM_UP_POLICY), "sluice-client-warm-up-" + i, KeyOp.acquire(0));
        transport.execute(warmUp, Deadline.after(warmUpTimeout.toNanos()));
        transport
            .executeAsync(warmUp, Deadline.NONE)
            .get(warmUpTimeout.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // Not answering yet: the first real calls follow the failure policy until it does.
    }
  }
}
