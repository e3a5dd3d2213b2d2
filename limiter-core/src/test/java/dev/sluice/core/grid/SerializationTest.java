package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.io.Serializable;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every serialized type round-trips; the previous state format still reads; no Java serialization.
 */
class SerializationTest {
  private static final InternalSerializationService SERIALIZATION = serializationService();

  private static InternalSerializationService serializationService() {
    SerializationConfig config = new SerializationConfig();
    config.addDataSerializableFactory(
        SluiceSerializationIds.FACTORY_ID, new SluiceDataSerializableFactory());
    return new DefaultSerializationServiceBuilder().setConfig(config).build();
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T object) {
    Data data = SERIALIZATION.toData(object);
    // Identified: type id -2 is Hazelcast's DataSerializable, never -24 (Java serialization).
    assertThat(data.getType()).isEqualTo(-2);
    return (T) SERIALIZATION.toObject(data);
  }

  private static final Policy GCRA =
      Policy.builder()
          .algorithm(Algorithm.GCRA)
          .limit(30)
          .window(Duration.ofSeconds(60))
          .burst(15)
          .shadow(true)
          .countDenied(true)
          .build();

  @Test
  void gridState_roundTrips() {
    GridState state = new GridState(-123, new long[] {1_767_265_200_000_000_000L, 3, -5, 0});
    assertThat(roundTrip(state)).isEqualTo(state);
  }

  @Test
  void keyOutcome_roundTripsDecisionsAndErrors() {
    KeyOutcome outcome = new KeyOutcome(3);
    outcome.setDecision(0, Decision.allow(16, 15, 2_000_000_000L));
    outcome.setDecision(1, Decision.deny(16, 0, 4_000_000_000L, 60_000_000_000L).asShadow());
    outcome.setError(2, KeyOutcome.INVALID, "cost", "cost: 17 exceeds the capacity 16");
    assertThat(roundTrip(outcome)).isEqualTo(outcome);
    assertThat(roundTrip(KeyOutcome.unknownRule(2, "login")))
        .isEqualTo(KeyOutcome.unknownRule(2, "login"));
  }

  @Test
  void acquireProcessor_roundTripsNamedAndInlineRequests() {
    AcquireProcessor processor =
        new AcquireProcessor(
            new KeyRequests[] {
              new KeyRequests("login|alice", 17, "login", null, new long[] {1, 2, 0}),
              new KeyRequests("~inline|bob", 200, null, GCRA, new long[] {5}),
            });
    KeyRequests[] back = roundTrip(processor).requests();
    assertThat(back).hasSize(2);
    assertThat(back[0].key).isEqualTo("login|alice");
    assertThat(back[0].partitionId).isEqualTo(17);
    assertThat(back[0].rule).isEqualTo("login");
    assertThat(back[0].permits).containsExactly(1, 2, 0);
    assertThat(back[1].policy).isEqualTo(GCRA);
    assertThat(back[1].rule).isNull();
  }

  @Test
  void storeStatesBackup_roundTrips() {
    StoreStatesBackup backup =
        new StoreStatesBackup(
            new String[] {"a|1", "b|2"},
            new GridState[] {new GridState(1, new long[] {1, 2, 3}), new GridState(2, new long[0])},
            new long[] {1_000, 120_000});
    assertThat(roundTrip(backup)).isEqualTo(backup);
  }

  @Test
  void peekProcessor_andRuleTypes_roundTrip() {
    PeekProcessor peek = roundTrip(new PeekProcessor(null, GCRA));
    assertThat(peek.getClassId()).isEqualTo(SluiceSerializationIds.PEEK);
    RuleRecord record = new RuleRecord("api", GCRA, 7);
    assertThat(roundTrip(record)).isEqualTo(record);
    RuleRecord tombstone = new RuleRecord("gone", null, 8);
    assertThat(roundTrip(tombstone)).isEqualTo(tombstone);
    assertThat(roundTrip(new RuleUpdateProcessor(GCRA)).getClassId())
        .isEqualTo(SluiceSerializationIds.RULE_UPDATE);
    assertThat(roundTrip(new RulePushTask(record)).getClassId())
        .isEqualTo(SluiceSerializationIds.RULE_PUSH);
  }

  @Test
  void factory_createsEveryId_andRefusesUnknownOnes() {
    SluiceDataSerializableFactory factory = new SluiceDataSerializableFactory();
    for (int id = SluiceSerializationIds.STATE; id <= SluiceSerializationIds.RULE_PUSH; id++) {
      assertThat(factory.create(id).getClassId()).isEqualTo(id);
      assertThat(factory.create(id).getFactoryId()).isEqualTo(SluiceSerializationIds.FACTORY_ID);
    }
    assertThatThrownBy(() -> factory.create(999)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Frozen bytes of a v1 state (fixed-width longs), written by the first grid build: fingerprint
   * 0x12345678, sliding_window state [window start 2026-01-01T11:00Z, current 3, previous 5].
   */
  private static final String STATE_V1_FIXTURE =
      "0112345678000000031886965605e8e00000000000000000030000000000000005";

  /** The same state in today's v2 format; a change here is a storage format change. */
  private static final String STATE_V2_FIXTURE = "0212345678068080c7dec095cb8631060a";

  @Test
  void gridState_readsPreviousFormatV1() throws Exception {
    ObjectDataInput in =
        SERIALIZATION.createObjectDataInput(HexFormat.of().parseHex(STATE_V1_FIXTURE));
    GridState state = new GridState();
    state.readData(in);
    assertThat(state)
        .isEqualTo(new GridState(0x12345678, new long[] {1_767_265_200_000_000_000L, 3, 5}));
  }

  @Test
  void gridState_writesV2_compactly() throws Exception {
    GridState state = new GridState(0x12345678, new long[] {1_767_265_200_000_000_000L, 3, 5});
    ObjectDataOutput out = SERIALIZATION.createObjectDataOutput();
    state.writeData(out);
    assertThat(HexFormat.of().formatHex(out.toByteArray())).isEqualTo(STATE_V2_FIXTURE);
    ObjectDataOutput v1 = SERIALIZATION.createObjectDataOutput();
    state.writeDataV1(v1);
    assertThat(HexFormat.of().formatHex(v1.toByteArray())).isEqualTo(STATE_V1_FIXTURE);
  }

  /**
   * sliding_buckets changed its state layout (a tag and a running sum were added) without a new
   * GridState format: the bytes hold any {@code long[]}, and the algorithm's {@code fit} reads the
   * first layout. A state stored in the first layout, 4 per 60 s in 6 buckets after two permits at
   * 5 s, one at 25 s and one at 45 s, still decides as the worked example in docs/algorithms.md.
   */
  @Test
  void gridState_slidingBucketsFirstLayout_stillDecidesAsBefore() {
    Policy policy =
        Policy.builder()
            .algorithm(Algorithm.SLIDING_BUCKETS)
            .limit(4)
            .window(Duration.ofSeconds(60))
            .buckets(6)
            .build();
    long second = 1_000_000_000L;
    // [bucketNanos, newestBucket, count_0 .. count_6]: buckets 0, 2 and 4 hold 2, 1 and 1.
    long[] firstLayout = {10 * second, 4, 2, 0, 1, 0, 1, 0, 0};
    GridState stored = roundTrip(new GridState(GridState.fingerprint(policy), firstLayout));
    assertThat(stored.fingerprint()).isEqualTo(GridState.fingerprint(policy));

    LimiterAlgorithm algorithm = LimiterAlgorithm.of(policy);
    long[] state = algorithm.fit(stored.state().clone());
    Decision denied = algorithm.apply(state, 64 * second, 1);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfterNanos()).isEqualTo(6 * second - 1);
    Decision allowed = algorithm.apply(state, 70 * second - 1, 1);
    assertThat(allowed.allowed()).isTrue();
    assertThat(allowed.remaining()).isEqualTo(1);
  }

  /** Not a Sluice type: any Serializable class outside the allow-list. */
  static final class ArbitrarySerializable implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<String> payload = List.of("gadget");
  }

  @Test
  void member_refusesJavaDeserializationOfArbitraryClasses() {
    try (GridTestCluster cluster = GridTestCluster.start(1)) {
      HazelcastInstance member = cluster.members.get(0);
      IMap<String, Object> map = member.getMap("not-sluice");
      map.put("k", new ArbitrarySerializable());
      assertThatThrownBy(() -> map.get("k"))
          .hasStackTraceContaining("ArbitrarySerializable")
          .hasStackTraceContaining("not allowed");
    }
  }
}
