package dev.sluice.client;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Check;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.backend.BatchingBackend;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.metrics.DecisionMetrics;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import dev.sluice.core.rules.RuleCache;
import dev.sluice.core.stats.NodeStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The application's rate limiter: a {@link RateLimiter} in front of the grid that answers the
 * attack path locally and never hangs the application.
 *
 * <p>Start here. Connect to a grid with {@link #builder()}{@code ...build()}, or put the same
 * client-side behaviour in front of a limiter of this library (an embedded member's, a local one)
 * with {@link Builder#wrap(RateLimiter)}:
 *
 * <pre>{@code
 * try (SluiceClient sluice = SluiceClient.builder()
 *     .addresses("10.0.0.1:5701", "10.0.0.2:5701")
 *     .clusterName("sluice")
 *     .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
 *     .build()) {
 *   Decision d = sluice.tryAcquire("login", "203.0.113.7");
 * }
 * }</pre>
 *
 * <h2>What happens to one call</h2>
 *
 * The pipeline ({@link PipelineRateLimiter}) makes the check a command on its key and records the
 * answer (metrics: {@code sluice_decisions_total} and the decision timer, as every runtime records
 * them). The command then meets the layers of the limiter's {@link BackendStack}, each one idea and
 * one test class, in this order:
 *
 * <ol>
 *   <li><b>lease answers</b>: if the key's owner leased this client permits and the lease is live,
 *       the call takes one and is answered at once, decided by {@code LEASE}, whatever the grid's
 *       health: the owner admitted those permits when it granted them.
 *   <li><b>denied-until cache</b> ({@link DeniedCacheBackend}): if the grid recently denied this
 *       key for at most this many permits and the retry-after has not run out, the answer is
 *       "denied" at once, decided by {@code DENIED_CACHE}. No network hop.
 *   <li><b>failure policy</b> ({@link FailurePolicyBackend}): the call waits at most the call
 *       timeout. A timeout or a lost connection opens the breaker and the rule's failure policy
 *       answers ({@code FAIL_OPEN} or {@code FAIL_CLOSED}); errors that belong to the request
 *       (unknown rule, a cost above the capacity) are thrown to the caller as they are.
 *   <li><b>lease asks</b>: a call on a key this client asks about often asks the owner for a lease
 *       along with it, and the lease that comes back answers the next calls.
 *   <li><b>batching</b>: if other calls on the same key are waiting from this client, this one
 *       joins its owner's lane and leaves with the calls queued there as one invocation.
 *   <li><b>storage</b>: one entry-processor invocation on the member that owns the key.
 * </ol>
 *
 * <p>A call that times out may still be decided by the grid later: the failure policy answered the
 * caller, but the permits may have been consumed. Timeouts are for outages, not for normal load.
 *
 * <p>Thread-safe. Close it to shut down the Hazelcast client it started (a wrapped limiter is not
 * closed: it belongs to the caller).
 */
public final class SluiceClient extends PipelineRateLimiter implements AutoCloseable {

  /** How long a decision waits for the grid by default before the failure policy answers. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMillis(50);

  private final PipelineRateLimiter delegate;
  private final @Nullable Runnable shutdown;
  private final Layers layers;
  private final RuleCache rules;
  private final @Nullable GridConnection connection;

  /**
   * The client's layers in front of {@code delegate}'s; if it is a grid limiter, its link to the
   * grid is followed in the background ({@link GridConnection}) and this waits for the first link
   * at most the builder's {@code connectTimeout}.
   */
  SluiceClient(Builder builder, RateLimiter delegate, @Nullable Runnable shutdown) {
    this(builder, Layers.of(builder, pipeline(delegate)), shutdown);
  }

  private SluiceClient(Builder builder, Layers layers, @Nullable Runnable shutdown) {
    super(
        layers.stack, new DecisionMetrics(builder.meterRegistry, layers.stack, builder.nodeStats));
    this.delegate = layers.delegate;
    this.shutdown = shutdown;
    this.layers = layers;
    this.rules = layers.rules;
    Duration warmUpTimeout =
        builder.connectTimeout.compareTo(builder.callTimeout) > 0
            ? builder.connectTimeout
            : builder.callTimeout;
    this.connection =
        delegate instanceof GridRateLimiter gridLimiter
            ? new GridConnection(
                gridLimiter,
                layers.stack.transport(),
                builder.callTimeout,
                warmUpTimeout,
                builder.meterRegistry)
            : null;
    layers.connection = connection;
    if (connection != null && !builder.connectTimeout.isZero()) {
      connection.awaitConnected(builder.connectTimeout);
    }
  }

  /** Only a pipeline's stack can take the client's layers. */
  private static PipelineRateLimiter pipeline(RateLimiter limiter) {
    if (limiter instanceof PipelineRateLimiter pipeline) {
      return pipeline;
    }
    throw new IllegalArgumentException(
        "SluiceClient wraps a limiter of this library (a GridRateLimiter, a LocalRateLimiter, or a"
            + " limiter made from one), whose layers it joins; got "
            + Objects.requireNonNull(limiter, "limiter").getClass().getName());
  }

  /**
   * The client's parts, made before the limiter itself: the layers it adds to the wrapped limiter's
   * stack, the rules cache they read, and the link to the grid they ask about (set once the client
   * exists).
   */
  private static final class Layers {
    PipelineRateLimiter delegate;
    BackendStack stack;
    RuleCache rules;
    boolean ownsRules;
    Runnable stopRuleChanges;
    FailurePolicyBackend failurePolicy;
    @Nullable DeniedCacheBackend deniedCache;
    volatile @Nullable GridConnection connection;

    static Layers of(Builder builder, PipelineRateLimiter delegate) {
      Layers layers = new Layers();
      layers.delegate = delegate;
      CircuitBreaker breaker =
          new CircuitBreaker(builder.probeInterval.toNanos(), builder.breakerClock);
      LocalDecisionMetrics metrics = new LocalDecisionMetrics(builder.meterRegistry, breaker);
      // A grid limiter's own copy of the rules, the one its batches are validated with; in front
      // of a limiter whose rules are in this JVM, a copy that answers its reads at once. Wall time,
      // not the injected clock: the staleness bound covers events lost in real time, and tests
      // that freeze the client's clock must still see rule changes.
      layers.ownsRules = !(delegate instanceof GridRateLimiter);
      layers.rules =
          delegate instanceof GridRateLimiter grid
              ? grid.ruleCache()
              : new RuleCache(delegate.rules(), System::nanoTime);
      layers.rules.guard(
          new RuleCache.Guard(
              () -> breaker.isOpen() || layers.offline(),
              breaker::open,
              builder.callTimeout.toNanos()));
      layers.stopRuleChanges = layers.rules.onChange(layers::onRuleChange);
      RuleCache rules = layers.rules;
      layers.stack =
          delegate.stack().toBuilder()
              .deniedCache(
                  builder.deniedCacheSize == 0
                      ? null
                      : below ->
                          layers.deniedCache =
                              new DeniedCacheBackend(
                                  below,
                                  new DeniedUntilCache(builder.deniedCacheSize, builder.nanoClock),
                                  metrics,
                                  builder.nanoClock,
                                  rules::known))
              .failurePolicy(
                  below ->
                      layers.failurePolicy =
                          new FailurePolicyBackend(
                              below,
                              builder.callTimeout,
                              breaker,
                              builder.failurePolicy,
                              builder.ruleFailurePolicies,
                              metrics,
                              rules::known))
              .syncCalls(
                  builder.coalescing
                      ? BatchingBackend.SyncCalls.COALESCED
                      : BatchingBackend.SyncCalls.DIRECT)
              .build();
      return layers;
    }

    /** Whether the grid cannot be asked right now (not reached yet, or disconnected). */
    boolean offline() {
      GridConnection link = connection;
      return link != null && link.offline();
    }

    /** A rule changed (every rule, for ""): its local denials are forgotten. */
    void onRuleChange(String rule) {
      DeniedCacheBackend cache = deniedCache;
      if (cache == null) {
        return;
      }
      if (rule.isEmpty()) {
        cache.invalidateAll();
      } else {
        cache.invalidateRule(rule);
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The client-side behaviour with every default, in front of {@code limiter}. */
  public static SluiceClient wrap(RateLimiter limiter) {
    return builder().wrap(limiter);
  }

  /**
   * The grid's rules, near-cached here and invalidated by the cluster (see {@link RuleCache}); a
   * change also drops this client's local denials under that rule.
   */
  @Override
  public RuleStore rules() {
    return rules;
  }

  // ---------------------------------------------------------------- the client's own

  /** The failure policy of {@code check}'s rule; inline policies take the client's default. */
  public FailurePolicy failurePolicyOf(Check check) {
    return layers.failurePolicy.failurePolicyOf(check.ref());
  }

  /**
   * Forgets every local denial under {@code rule}: called when a rule changes, since a new limit or
   * window can admit what the old one denied.
   */
  public void invalidateRule(String rule) {
    DeniedCacheBackend cache = layers.deniedCache;
    if (cache != null) {
      cache.invalidateRule(rule);
    }
  }

  /**
   * Whether the circuit breaker is open: the grid failed recently and calls are decided locally.
   */
  public boolean gridUnavailable() {
    return layers.failurePolicy.gridUnavailable();
  }

  /**
   * Where this client stands with its grid: {@link GridState#CONNECTING} until it first reaches it,
   * then {@link GridState#CONNECTED} while the grid answers, {@link GridState#UNRESPONSIVE} when it
   * is connected but no member answered within two call timeouts, {@link GridState#DISCONNECTED}
   * while it reconnects. Also the gauge {@code sluice_client_grid_state}. A client in front of a
   * limiter that is not a grid's is always {@code CONNECTED}.
   */
  public GridState gridState() {
    return connection == null ? GridState.CONNECTED : connection.state();
  }

  /**
   * The Hazelcast instance behind this client: its own Hazelcast client, or the member or client of
   * a wrapped grid limiter; empty for other limiters.
   */
  public Optional<HazelcastInstance> hazelcast() {
    return delegate instanceof GridRateLimiter grid
        ? Optional.of(grid.hazelcast())
        : Optional.empty();
  }

  /** The limiter this client sends to: a grid limiter over its Hazelcast client, or the wrapped. */
  public RateLimiter delegate() {
    return delegate;
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
    layers.stopRuleChanges.run();
    if (layers.ownsRules) {
      rules.close();
    }
    if (shutdown != null) {
      shutdown.run();
    }
  }

  /**
   * Options of a {@link SluiceClient}. Every option has a default that suits an application that
   * would rather serve than block: fail-open, a 50 ms call timeout, a one-second probe interval,
   * denied cache of 100,000 keys, coalescing on.
   */
  public static final class Builder {
    final List<String> addresses = new ArrayList<>();
    String clusterName = "sluice";
    Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    Duration probeInterval = Duration.ofSeconds(1);
    FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;
    final Map<String, FailurePolicy> ruleFailurePolicies = new HashMap<>();
    long deniedCacheSize = 100_000;
    boolean coalescing = true;
    boolean leases = true;
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    @Nullable NodeStats nodeStats;
    LongSupplier nanoClock = System::nanoTime;
    LongSupplier breakerClock = System::nanoTime;
    Duration connectTimeout = Duration.ofSeconds(5);
    Consumer<ClientConfig> clientConfigCustomizer = config -> {};

    Builder() {}

    /**
     * How long {@link #build()} (and {@link #wrap} of a grid limiter) waits for the first link to
     * the cluster before it returns, 5 s by default; 0: not at all. It never fails for want of one:
     * the client keeps connecting in the background and decisions follow the failure policy until
     * it has ({@link SluiceClient#gridState()}). Waiting lets a grid that is up decide the
     * application's first call.
     */
    public Builder connectTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative()) {
        throw new InvalidPolicyException("connectTimeout", "must not be negative, was " + timeout);
      }
      this.connectTimeout = timeout;
      return this;
    }

    /**
     * A last word on the Hazelcast client's settings (TLS, discovery, labels), applied after
     * Sluice's own.
     */
    public Builder clientConfig(Consumer<ClientConfig> customizer) {
      this.clientConfigCustomizer = Objects.requireNonNull(customizer, "clientConfig");
      return this;
    }

    /**
     * Starts a Hazelcast client to the cluster (smart routing: one hop to each key's owner) and a
     * grid limiter over it, and waits at most {@code connectTimeout} for the first link. Closing
     * the {@link SluiceClient} shuts them down.
     *
     * <p>The grid need not be there: without it the client answers by the failure policy from the
     * first call, connects in the background, and says so ({@link SluiceClient#gridState()}, the
     * gauge {@code sluice_client_grid_state}). Only a configuration error fails the build.
     */
    public SluiceClient build() {
      HazelcastInstance hazelcast = HazelcastClient.newHazelcastClient(hazelcastClientConfig());
      GridRateLimiter grid;
      try {
        grid =
            new GridRateLimiter(
                hazelcast,
                GridRateLimiter.Options.defaults().withLeases(leases).withLeaseClock(nanoClock));
      } catch (RuntimeException e) {
        // Stop the client: its threads would otherwise keep running (and keep the JVM alive) with
        // nobody left to close it.
        hazelcast.shutdown();
        throw e;
      }
      return new SluiceClient(
          this,
          grid,
          () -> {
            grid.close();
            hazelcast.shutdown();
          });
    }

    /**
     * The Hazelcast client configuration {@link #build()} starts its client with; also for a caller
     * that starts and owns the Hazelcast client itself, such as a grid node in client mode. Nothing
     * here may block a caller forever:
     *
     * <ul>
     *   <li>all-members routing (smart routing): each key's request goes straight to its owner;
     *   <li>async start: starting the client does not wait for the cluster at all; it connects in
     *       the background, and decisions follow the failure policy until it has;
     *   <li>async reconnect with a backoff capped at one second: a returning grid is found quickly
     *       and calls meanwhile fail fast ({@code HazelcastClientOfflineException});
     *   <li>an invocation timeout of a few seconds, so a call the client gave up on (after the call
     *       timeout) does not hold resources for Hazelcast's default two minutes.
     * </ul>
     *
     * Then Sluice's serialization, and last the {@link #clientConfig} customizer.
     */
    public ClientConfig hazelcastClientConfig() {
      ClientConfig config = new ClientConfig();
      config.setClusterName(clusterName);
      config
          .getNetworkConfig()
          .setAddresses(addresses.isEmpty() ? List.of("127.0.0.1:5701") : List.copyOf(addresses));
      config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
      config
          .getConnectionStrategyConfig()
          .setAsyncStart(true)
          .setReconnectMode(ReconnectMode.ASYNC)
          .getConnectionRetryConfig()
          .setInitialBackoffMillis(100)
          .setMaxBackoffMillis(1_000)
          .setClusterConnectTimeoutMillis(-1);
      long invocationSeconds = Math.max(2, callTimeout.toSeconds() * 2 + 1);
      config.setProperty(
          "hazelcast.client.invocation.timeout.seconds", Long.toString(invocationSeconds));
      SluiceHazelcast.configure(config);
      clientConfigCustomizer.accept(config);
      return config;
    }

    /** Member addresses ({@code host:port}) to connect to; 127.0.0.1:5701 if none is given. */
    public Builder addresses(String... memberAddresses) {
      addresses.addAll(List.of(memberAddresses));
      return this;
    }

    public Builder clusterName(String name) {
      if (name == null || name.isBlank()) {
        throw new InvalidPolicyException("clusterName", "is required");
      }
      this.clusterName = name;
      return this;
    }

    /** How long a decision waits for the grid before the failure policy answers. */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = positive("callTimeout", timeout);
      return this;
    }

    /** How often, while the grid is failing, one call goes to it to see whether it is back. */
    public Builder probeInterval(Duration interval) {
      this.probeInterval = positive("probeInterval", interval);
      return this;
    }

    /** The failure policy of every rule not given its own, and of inline policies. */
    public Builder failurePolicy(FailurePolicy policy) {
      this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
      return this;
    }

    /** The failure policy of one rule. */
    public Builder failurePolicy(String rule, FailurePolicy policy) {
      ruleFailurePolicies.put(
          Rule.checkName(rule), Objects.requireNonNull(policy, "failurePolicy"));
      return this;
    }

    /** How many denied keys the client remembers; 0 turns the denied-until cache off. */
    public Builder deniedCacheSize(long size) {
      if (size < 0) {
        throw new InvalidPolicyException("deniedCacheSize", "must not be negative, was " + size);
      }
      this.deniedCacheSize = size;
      return this;
    }

    /** Whether concurrent calls on one key leave as one batch (on by default). */
    public Builder coalescing(boolean enabled) {
      this.coalescing = enabled;
      return this;
    }

    /**
     * Whether this client asks the owners of its hot keys for leases and answers from them without
     * a round trip (on by default; a rule with {@code leases: off} is never leased). A lease never
     * admits more than the grid alone would: docs/client.md, "Leases".
     */
    public Builder leases(boolean enabled) {
      this.leases = enabled;
      return this;
    }

    /** Where {@code sluice_client_local_decisions_total} and friends are registered. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
      return this;
    }

    /**
     * Also counts every answer the application gets in a grid node's console stats (a client-mode
     * node's; none by default).
     */
    public Builder nodeStats(NodeStats stats) {
      this.nodeStats = Objects.requireNonNull(stats, "nodeStats");
      return this;
    }

    /**
     * The clock local denials and leases run out on ({@code System::nanoTime} by default): the
     * retry-after and the lease length the grid gave are counted down on it. Tests whose grid
     * decides on a manual clock give its readings here, so that both run out when the grid's do.
     */
    public Builder nanoClock(LongSupplier clock) {
      this.nanoClock = clock;
      return this;
    }

    /**
     * The monotonic clock of the breaker's probe interval ({@code System::nanoTime} by default): a
     * real interval, since it is about how long the network has been failing.
     */
    Builder breakerClock(LongSupplier clock) {
      this.breakerClock = clock;
      return this;
    }

    /** A client with these options in front of {@code limiter}, which it does not own. */
    public SluiceClient wrap(RateLimiter limiter) {
      return new SluiceClient(this, Objects.requireNonNull(limiter, "limiter"), null);
    }

    private static Duration positive(String field, Duration duration) {
      if (duration == null || duration.isNegative() || duration.isZero()) {
        throw new InvalidPolicyException(field, "must be positive, was " + duration);
      }
      return duration;
    }
  }
}
