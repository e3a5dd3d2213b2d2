package dev.sluice.core.grid;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.CacheDeserializedValues;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.config.SerializerConfig;
import dev.sluice.core.TimeSource;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.member.MostConsumedMergePolicy;
import dev.sluice.core.grid.transport.AsyncCallbackExecutor;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.grid.wire.KeyOutcomeSerializer;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.StoredStateSerializer;
import java.util.function.LongPredicate;

/**
 * The one place that configures Hazelcast for Sluice. Grid nodes, embedded members and clients all
 * go through here:
 *
 * <pre>{@code
 * Config config = new Config();                       // your cluster settings
 * SluiceHazelcast.configure(config, TimeSource.system());
 * HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
 * RateLimiter limiter = new GridRateLimiter(member);
 *
 * ClientConfig clientConfig = new ClientConfig();
 * SluiceHazelcast.configure(clientConfig);
 * RateLimiter remote = new GridRateLimiter(HazelcastClient.newHazelcastClient(clientConfig));
 * }</pre>
 *
 * What it sets: the {@link SluiceDataSerializableFactory} and the stream serializers of the
 * pipeline's types ({@link StoredStateSerializer}, {@link KeyOutcomeSerializer}); Hazelcast's Java
 * serialization filter with an allow-list of {@code com.hazelcast.}, {@code java.} and {@code
 * javax.} (Sluice itself never uses Java serialization, so any other {@code Serializable} class is
 * refused); the state map {@value GridNames#STATE_MAP} (backup count 1, in-memory format {@link
 * #DEFAULT_STATE_FORMAT}, statistics on, no cached deserialized values, split-brain healing by
 * {@link MostConsumedMergePolicy}); the rules map {@value GridNames#RULES_MAP}; the receipt
 * secret's map {@value GridNames#SECRETS_MAP} (backed up on every member, up to Hazelcast's 6); and
 * on members the {@link MemberContext} (clock, local rules copy, and the sweep that removes idle
 * states every {@value #SWEEP_PERIOD_MILLIS_PROPERTY}) in the config's user context.
 *
 * <p>Configure each member's {@code Config} once; members must not share one {@code Config} object.
 */
public final class SluiceHazelcast {
  /**
   * The state map's in-memory format, chosen by measurement (docs/grid.md, "In-memory format"):
   * OBJECT keeps each value as the 24-byte {@link StateValue} the processors hand it, where BINARY
   * keeps a 56-byte serialized copy (a {@code HeapData} and its array), and the two decide equally
   * fast within run-to-run noise. {@code LocalMapStats} reports no memory cost for OBJECT maps: the
   * benchmarks count heap bytes instead.
   */
  public static final InMemoryFormat DEFAULT_STATE_FORMAT = InMemoryFormat.OBJECT;

  /**
   * Member config property: the shortest time-to-live a state entry gets where it gets one (an
   * inline policy's state), in milliseconds (default 1000, Hazelcast's TTL resolution). TTL runs on
   * the wall clock while decisions run on the member's {@link TimeSource}; the two agree in
   * production, but a member driven by a manual clock (tests, simulations) must raise this so that
   * cleanup never expires a state its clock still needs. The sweep reads the member's {@code
   * TimeSource}, so it needs no such floor. Read once, when the member is configured.
   */
  public static final String MIN_STATE_TTL_MILLIS_PROPERTY = "sluice.state.min-ttl-millis";

  private static final long DEFAULT_MIN_STATE_TTL_MILLIS = 1_000L;

  /**
   * Member config property: how long each member waits between its sweeps of the state map, in
   * milliseconds (default 30000). An idle rule state disappears at most this long, plus one pass
   * and a second, after it stopped counting (docs/grid.md, "Cleanup"); a pass costs about a second
   * of CPU per million keys a member owns (docs/grid.md, "Memory layout and cleanup"). Read once,
   * when the member is configured.
   */
  public static final String SWEEP_PERIOD_MILLIS_PROPERTY = "sluice.state.sweep-period-millis";

  private static final long DEFAULT_SWEEP_PERIOD_MILLIS = 30_000L;
  private static final long MIN_SWEEP_PERIOD_MILLIS = 10L;

  private SluiceHazelcast() {}

  /** Configures a member with the default state format. */
  public static Config configure(Config config, TimeSource timeSource) {
    return configure(config, timeSource, DEFAULT_STATE_FORMAT);
  }

  /** Configures a member; returns {@code config}. */
  public static Config configure(Config config, TimeSource timeSource, InMemoryFormat stateFormat) {
    if (config.getUserContext().get(MemberContext.USER_CONTEXT_KEY) != null) {
      throw new IllegalStateException(
          "this Config is already configured for Sluice; give each member its own Config");
    }
    configureSerialization(config.getSerializationConfig());
    AsyncCallbackExecutor.installIfThreadPerTask();

    MapConfig state = config.getMapConfig(GridNames.STATE_MAP);
    state.setBackupCount(1);
    state.setAsyncBackupCount(0);
    state.setInMemoryFormat(stateFormat);
    state.setStatisticsEnabled(true);
    state.setPerEntryStatsEnabled(false);
    // Nothing queries the state map, so a record needs no slot for a cached deserialized value:
    // with NEVER Hazelcast picks a record without that reference, 4 B less per entry (and per
    // backup entry). docs/grid.md, "Memory layout and cleanup", has the whole per-entry account.
    state.setCacheDeserializedValues(CacheDeserializedValues.NEVER);
    state.getMergePolicyConfig().setPolicy(MostConsumedMergePolicy.class.getName());
    sweepEveryPartitionForExpiredStates(config);

    MapConfig rules = config.getMapConfig(GridNames.RULES_MAP);
    rules.setBackupCount(1);
    rules.setInMemoryFormat(InMemoryFormat.BINARY);

    // A region's budgets for global rules (docs/multi-region.md): held by each key's owner, with
    // a backup that only stores what the owner computed.
    MapConfig budgets = config.getMapConfig(RegionLink.BUDGET_MAP);
    budgets.setBackupCount(1);
    budgets.setAsyncBackupCount(0);
    budgets.setInMemoryFormat(InMemoryFormat.OBJECT);
    config.getExecutorConfig(RegionLink.EXECUTOR).setPoolSize(RegionLink.EXECUTOR_THREADS);

    MapConfig secrets = config.getMapConfig(GridNames.SECRETS_MAP);
    secrets.setBackupCount(MapConfig.MAX_BACKUP_COUNT);
    secrets.setAsyncBackupCount(0);

    MemberContext context =
        new MemberContext(
            timeSource,
            GridNames.RULES_MAP,
            millisProperty(
                config,
                MIN_STATE_TTL_MILLIS_PROPERTY,
                DEFAULT_MIN_STATE_TTL_MILLIS,
                millis -> millis >= DEFAULT_MIN_STATE_TTL_MILLIS,
                "at least " + DEFAULT_MIN_STATE_TTL_MILLIS),
            millisProperty(
                config,
                SWEEP_PERIOD_MILLIS_PROPERTY,
                DEFAULT_SWEEP_PERIOD_MILLIS,
                millis -> millis >= MIN_SWEEP_PERIOD_MILLIS,
                "at least " + MIN_SWEEP_PERIOD_MILLIS));
    config.getUserContext().put(MemberContext.USER_CONTEXT_KEY, context);
    config.addListenerConfig(new ListenerConfig(context));
    return config;
  }

  /**
   * Where a TTL is what removes idle states (inline policies' states), Hazelcast's background
   * expiry task visits only a few partitions per round by default: 20 s after a load over 100,000
   * keys stopped, 53,136 idle states were still held (docs/reliability.md, soak). Visiting every
   * partition each round cleared them in under 4 s. A value the user set is kept.
   */
  private static void sweepEveryPartitionForExpiredStates(Config config) {
    String operations = "hazelcast.internal.map.expiration.cleanup.operation.count";
    if (config.getProperty(operations) == null) {
      String partitions = config.getProperty("hazelcast.partition.count");
      config.setProperty(operations, partitions != null ? partitions : "271");
    }
  }

  private static long millisProperty(
      Config config, String property, long otherwise, LongPredicate valid, String rule) {
    String value = config.getProperty(property);
    if (value == null) {
      return otherwise;
    }
    try {
      long millis = Long.parseLong(value.trim());
      if (valid.test(millis)) {
        return millis;
      }
    } catch (NumberFormatException e) {
      // reported below, with the value
    }
    throw new IllegalArgumentException(
        property + ": must be a whole number of milliseconds, " + rule + ", was '" + value + "'");
  }

  /** Configures a client; returns {@code config}. */
  public static ClientConfig configure(ClientConfig config) {
    configureSerialization(config.getSerializationConfig());
    config.setBackupAckToClientEnabled(false);
    AsyncCallbackExecutor.installIfThreadPerTask();
    return config;
  }

  public static void configureSerialization(SerializationConfig serialization) {
    serialization.addDataSerializableFactory(
        SluiceSerializationIds.FACTORY_ID, new SluiceDataSerializableFactory());
    // One format for both: a StoredState (what a caller may put) and the compact StateValue a
    // member keeps in memory are written alike and read as a StateValue.
    serialization.addSerializerConfig(
        new SerializerConfig()
            .setImplementation(new StoredStateSerializer())
            .setTypeClass(StateValue.class));
    serialization.addSerializerConfig(
        new SerializerConfig()
            .setImplementation(new StoredStateSerializer())
            .setTypeClass(StoredState.class));
    serialization.addSerializerConfig(
        new SerializerConfig()
            .setImplementation(new KeyOutcomeSerializer())
            .setTypeClass(KeyOutcome.class));
    serialization.setJavaSerializationFilterConfig(
        new JavaSerializationFilterConfig()
            .setWhitelist(new ClassFilter().addPrefixes("com.hazelcast.", "java.", "javax.")));
  }
}
