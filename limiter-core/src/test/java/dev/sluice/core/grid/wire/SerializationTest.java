package dev.sluice.core.grid.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.ReservationException;
import dev.sluice.core.ReservationId;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.ReservationLedger;
import dev.sluice.core.decision.SpentReceipts;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.GridTestCluster;
import dev.sluice.core.grid.SluiceDataSerializableFactory;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.grid.member.DecideProcessor;
import dev.sluice.core.grid.member.NodeStatsTask;
import dev.sluice.core.grid.member.PeekProcessor;
import dev.sluice.core.grid.member.RulePushTask;
import dev.sluice.core.grid.member.RuleUpdateProcessor;
import dev.sluice.core.grid.member.StoreStatesBackup;
import dev.sluice.core.grid.member.SweepProcessor;
import dev.sluice.core.test.Seeds;
import java.io.Serializable;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every serialized type round-trips; the stored state format is pinned; no Java serialization. */
@ExtendWith(Seeds.class)
class SerializationTest {
  private static final InternalSerializationService SERIALIZATION = serializationService();

  private static InternalSerializationService serializationService() {
    SerializationConfig config = new SerializationConfig();
    SluiceHazelcast.configureSerialization(config);
    return new DefaultSerializationServiceBuilder().setConfig(config).build();
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T object) {
    Data data = SERIALIZATION.toData(object);
    // Identified: type id -2 is Hazelcast's DataSerializable, never -24 (Java serialization).
    assertThat(data.getType()).isEqualTo(-2);
    return (T) SERIALIZATION.toObject(data);
  }

  private static StoredState roundTripState(StoredState state) {
    Data data = SERIALIZATION.toData(state);
    assertThat(data.getType()).isEqualTo(SluiceSerializationIds.STATE_TYPE_ID);
    Object read = SERIALIZATION.toObject(data);
    // A member keeps the compact form; it is written exactly as the StoredState it holds, so
    // members of earlier builds (which know only StoredState) read it.
    assertThat(read).isEqualTo(StateValue.of(state));
    assertThat(SERIALIZATION.toData(read).toByteArray()).isEqualTo(data.toByteArray());
    return StateValue.stored(read);
  }

  /**
   * A sliding or fixed window of whole seconds packs into one long (24 bytes on the heap); anything
   * else is held wide, and both give back exactly what was stored.
   */
  @Test
  void stateValue_packsWholeSecondWindows_holdsEverythingElseWide() {
    long start = 1_767_265_200L * 1_000_000_000L;
    long[][] packed = {{start, 3, 5}, {start, 0, 0}, {start, 32_767, 32_767}, {start, 7}, {0}};
    for (long[] values : packed) {
      StateValue value = StateValue.of(new StoredState(-9, values));
      assertThat(value)
          .as("%s", java.util.Arrays.toString(values))
          .isInstanceOf(StateValue.Packed.class);
      assertThat(value.toStored()).isEqualTo(new StoredState(-9, values));
    }
    long[][] wide = {
      {start + 1, 3, 5},
      {start, 32_768, 0},
      {start, 0, -1},
      {-start, 1, 1},
      {(1L << 32) * 1_000_000_000L, 1, 1},
      {start, 1, 2, 3},
      {}
    };
    for (long[] values : wide) {
      StateValue value = StateValue.of(new StoredState(4, values));
      assertThat(value)
          .as("%s", java.util.Arrays.toString(values))
          .isInstanceOf(StateValue.Wide.class);
      assertThat(value.toStored()).isEqualTo(new StoredState(4, values));
    }
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
    StoredState state = new StoredState(-123, new long[] {1_767_265_200_000_000_000L, 3, -5, 0});
    assertThat(roundTripState(state)).isEqualTo(state);
    StoredState unaligned = new StoredState(7, new long[] {1_767_265_200_123_456_789L, 1});
    assertThat(roundTripState(unaligned)).isEqualTo(unaligned);
    StoredState empty = new StoredState(0, new long[0]);
    assertThat(roundTripState(empty)).isEqualTo(empty);
  }

  /** Values around every scale boundary and both ends of the range, each alone in a state. */
  @Test
  void gridState_roundTripsEdgeValues() {
    long second = 1_000_000_000L;
    long[] values = {
      0,
      1,
      -1,
      15,
      16,
      -16,
      999,
      1_000,
      -1_000,
      1_001,
      999_999,
      1_000_000,
      second,
      -second,
      second + 1,
      1_767_265_200L * second,
      1_767_265_200L * second + 1_000,
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      Long.MAX_VALUE / second * second,
      Long.MIN_VALUE / second * second,
      1L << 60,
      -(1L << 60),
      (1L << 60) * 1_000
    };
    for (long value : values) {
      StoredState state = new StoredState(1, new long[] {value, value, 3});
      assertThat(roundTripState(state)).as("value %d", value).isEqualTo(state);
      long code = StateFormat.scaledCode(value);
      if (code != -1) {
        assertThat(code).as("code of %d", value).isNotNegative();
      }
    }
  }

  /** Random states of mixed magnitudes and alignments, seeded ({@link Seeds}). */
  @Test
  void gridState_roundTripsRandomStates() {
    java.util.Random random = Seeds.random();
    long[] scales = {1, 1_000, 1_000_000, 1_000_000_000};
    for (int i = 0; i < 2_000; i++) {
      long[] state = new long[random.nextInt(6)];
      for (int j = 0; j < state.length; j++) {
        long scale = scales[random.nextInt(scales.length)];
        state[j] = random.nextBoolean() ? random.nextLong() : random.nextInt() * scale;
      }
      StoredState gridState = new StoredState(random.nextInt(), state);
      assertThat(roundTripState(gridState)).as("state %d", i).isEqualTo(gridState);
    }
  }

  @Test
  void keyOutcome_roundTripsDecisionsAndErrors() {
    KeyOutcome outcome = new KeyOutcome(4, 1_767_265_200_123_456_789L);
    outcome.setDecision(0, Decision.allow(16, 15, 2_000_000_000L));
    outcome.setDecision(1, Decision.deny(16, 0, 4_000_000_000L, 60_000_000_000L).asShadow());
    outcome.setError(2, KeyOutcome.Code.INVALID, "cost", "cost: 17 exceeds the capacity 16");
    // The second limit of a policy decided: the headers name it.
    outcome.setDecision(
        3,
        Decision.deny(16, 0, 1, 60_000_000_000L)
            .withPermitId(9)
            .withBindingLimit(1, 1_000_000_000L)
            .asShadowBan());
    KeyOutcome back = roundTripStream(outcome, SluiceSerializationIds.KEY_OUTCOME_TYPE_ID);
    assertThat(back).isEqualTo(outcome);
    assertThat(back.decision(3).bindingLimitIndex()).isEqualTo(1);
    assertThat(back.decision(3).bindingResetAfterNanos()).isEqualTo(1_000_000_000L);
    assertThat(back.decision(0).bindingResetAfterNanos()).isEqualTo(2_000_000_000L);
    assertThat(back.decision(3).shadowBanned()).isTrue();
    assertThat(back.decision(1).shadowBanned()).isFalse();
    KeyOutcome refused = new KeyOutcome(1, 1_767_265_200_123_456_789L);
    refused.setError(0, KeyOutcome.Code.RESERVATION, "COMMITTED", "reservation 7 was committed");
    KeyOutcome refusedBack = roundTripStream(refused, SluiceSerializationIds.KEY_OUTCOME_TYPE_ID);
    assertThat(refusedBack).isEqualTo(refused);
    assertThatThrownBy(() -> refusedBack.decision(0))
        .isInstanceOfSatisfying(
            ReservationException.class,
            e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.COMMITTED));
    assertThat(
            roundTripStream(
                KeyOutcome.unknownRule(2, "login"), SluiceSerializationIds.KEY_OUTCOME_TYPE_ID))
        .isEqualTo(KeyOutcome.unknownRule(2, "login"));
  }

  @Test
  void keyOutcome_roundTripsPlainPacedAndWindowEndLeases_besideEachOther() {
    long decidedAt = 1_767_265_200_123_456_789L;
    KeyOutcome outcome = new KeyOutcome(4, decidedAt);
    outcome.setDecision(0, Decision.allow(100, 40, 1_000_000_000L));
    outcome.setLease(0, 20, decidedAt + 100_000_000L);
    outcome.setDecision(1, Decision.deny(100, 0, 1, 1_000_000_000L));
    outcome.setPacedLease(
        1, new PacedLease(10, decidedAt + 1, 10_000_000L, decidedAt + 100_000_000L));
    outcome.setError(2, KeyOutcome.Code.INVALID, "cost", "cost: 101 exceeds the capacity 100");
    outcome.setDecision(3, Decision.allow(100, 80, 600_000_000L));
    outcome.setLeaseToWindowEnd(3, 20, decidedAt + 600_000_000L);
    KeyOutcome back = roundTripStream(outcome, SluiceSerializationIds.KEY_OUTCOME_TYPE_ID);
    assertThat(back).isEqualTo(outcome);
    assertThat(back.pacedLease(0)).isNull();
    assertThat(back.leased(0)).isEqualTo(20);
    assertThat(back.leaseToWindowEnd(0)).isFalse();
    assertThat(back.leaseToWindowEnd(3)).isTrue();
    assertThat(back.leaseEndsAtNanos(3)).isEqualTo(decidedAt + 600_000_000L);
    assertThat(back.slice(3, 1).leaseToWindowEnd(0)).isTrue();
    assertThat(back.pacedLease(1))
        .isEqualTo(new PacedLease(10, decidedAt + 1, 10_000_000L, decidedAt + 100_000_000L));
    assertThat(back.slice(1, 1).pacedLease(0)).isEqualTo(back.pacedLease(1));
  }

  @Test
  void keyOutcome_roundTripsTheNoReceiptMark_ofARegionsAnswer_onItsOperationOnly() {
    KeyOutcome outcome = new KeyOutcome(3, 1_000L);
    outcome.setDecision(0, Decision.allow(100, 40, 1_000_000_000L));
    outcome.setDecision(1, Decision.allow(100, 39, 1_000_000_000L));
    outcome.setNoReceipt(1);
    outcome.setLease(1, 20, 2_000L);
    outcome.setError(2, KeyOutcome.Code.INVALID, "rule", "rule: made at home");
    KeyOutcome back = roundTripStream(outcome, SluiceSerializationIds.KEY_OUTCOME_TYPE_ID);
    assertThat(back).isEqualTo(outcome);
    assertThat(back.noReceipt(0)).isFalse();
    assertThat(back.noReceipt(1)).isTrue();
    assertThat(back.leased(1)).isEqualTo(20);
    assertThat(back.slice(1, 1).noReceipt(0)).isTrue();
    assertThat(back.code(2)).isEqualTo(KeyOutcome.Code.INVALID);
  }

  private static <T> T roundTripStream(T object, int typeId) {
    Data data = SERIALIZATION.toData(object);
    assertThat(data.getType()).isEqualTo(typeId);
    return SERIALIZATION.toObject(data);
  }

  private static final Policy TWO_LIMITS =
      Policy.builder()
          .limit(10)
          .window(Duration.ofSeconds(1))
          .and(
              Limit.builder()
                  .algorithm(Algorithm.TOKEN_BUCKET)
                  .limit(1_000)
                  .window(Duration.ofHours(1))
                  .burst(50)
                  .build())
          .build();

  @Test
  void decideProcessor_roundTripsNamedAndInlineCommands() {
    KeyCommand named =
        new KeyCommand(
            "login|alice",
            PolicyRef.rule("login"),
            new KeyOp[] {
              KeyOp.acquire(1),
              KeyOp.acquire(2),
              KeyOp.peek(),
              KeyOp.release(3),
              KeyOp.releaseAdmittedAt(1, 1_767_265_200_000_000_007L),
              KeyOp.reserve(40, 60_000_000_000L),
              KeyOp.commit(1_767_265_200_000_000_009L, 1_767_265_260_000_000_009L, 0),
              KeyOp.commit(1_767_265_200_000_000_010L, 1_767_265_260_000_000_010L, 77),
              KeyOp.releaseReceipt(3, 1_767_265_200_000_000_011L, 0, -4_611_686_018_427_387_904L),
              KeyOp.releaseReceipt(1, 1_767_265_200_000_000_012L, 100_000_000L, 42)
            });
    KeyCommand inline = KeyCommand.of(PolicyRef.inline(TWO_LIMITS), "bob", KeyOp.acquire(5));
    DecideProcessor back =
        roundTrip(new DecideProcessor(new KeyCommand[] {named, inline}, new int[] {17, 200}));
    assertThat(back.commands()).containsExactly(named, inline);
    assertThat(back.forKey(1).commands()).containsExactly(inline);
  }

  /**
   * A key with reservations keeps its ledger through the stored format, the map's value and a
   * backup; a key without one is written byte for byte as before reservations existed.
   */
  @Test
  void stateWithReservations_roundTripsItsLedger() {
    long[] ledger = {1_767_265_200_000_000_000L, 40, 1_767_265_200_000_000_000L, 1L << 62, -1};
    StoredState held = new StoredState(3, new long[] {1_767_265_200_000_000_000L, 40, 0}, ledger);
    assertThat(roundTripState(held)).isEqualTo(held);
    assertThat(StateValue.of(held).toStored()).isEqualTo(held);
    StoreStatesBackup<?> backup =
        new StoreStatesBackup<>(new String[] {"a|1"}, new StoredState[] {held}, new long[] {-1});
    assertThat(roundTrip(backup)).isEqualTo(backup);

    StoredState plain = new StoredState(3, new long[] {1_767_265_200_000_000_000L, 40, 0});
    assertThat(SERIALIZATION.toData(StateValue.of(plain)).toByteArray())
        .hasSizeLessThan(SERIALIZATION.toData(StateValue.of(held)).toByteArray().length);
    assertThat(StateValue.of(plain)).isInstanceOf(StateValue.Packed.class);
  }

  /**
   * A key that remembers receipts given back keeps them through the stored format, the map's value
   * and a backup, with or without reservations beside them, and beside the policy that wrote it (a
   * state under a state name): every trailing section has a flag bit of its own.
   */
  @Test
  void stateWithSpentReceipts_roundTripsThem() {
    long[] values = {1_767_265_200_000_000_000L, 40, 0};
    long[] spent = {Long.MIN_VALUE, 1_767_265_200_000_000_001L, -7, 1_767_265_200_500_000_000L, 9};
    long[] ledger = {1_767_265_200_000_000_000L, 40, 1_767_265_200_000_000_000L, 1L << 62, -1};
    for (StoredState held :
        List.of(
            new StoredState(3, values, ReservationLedger.EMPTY, spent, null),
            new StoredState(3, values, ledger, spent, null),
            new StoredState(3, values, ReservationLedger.EMPTY, spent, GCRA),
            new StoredState(3, values, ledger, spent, TWO_LIMITS))) {
      assertThat(roundTripState(held)).isEqualTo(held);
      assertThat(StateValue.of(held))
          .isInstanceOf(
              held.writer() == null ? StateValue.Wide.class : StateValue.WithWriter.class);
      assertThat(StateValue.of(held).toStored()).isEqualTo(held);
      StoreStatesBackup<?> backup =
          new StoreStatesBackup<>(new String[] {"a|1"}, new StoredState[] {held}, new long[] {-1});
      assertThat(roundTrip(backup)).isEqualTo(backup);
    }
  }

  /**
   * A state under a state name keeps the policy that wrote it through the stored format, the map's
   * value and a backup (the next call may bring other parameters, and any member must be able to
   * carry it over); a command under a state name keeps its name on the wire.
   */
  @Test
  void stateUnderAStateName_roundTripsItsWriter_andItsCommandItsName() {
    Policy gcra =
        Policy.builder()
            .algorithm(Algorithm.GCRA)
            .limit(30)
            .window(Duration.ofSeconds(60))
            .burst(15)
            .build();
    StoredState kept =
        new StoredState(
            CompiledPolicy.fingerprint(gcra),
            new long[] {1_767_265_200_123_456_789L, 7},
            ReservationLedger.EMPTY,
            SpentReceipts.EMPTY,
            gcra);
    assertThat(roundTripState(kept)).isEqualTo(kept);
    assertThat(roundTripState(kept).writer()).isEqualTo(gcra);
    assertThat(StateValue.of(kept)).isInstanceOf(StateValue.WithWriter.class);
    StoreStatesBackup<?> backup =
        new StoreStatesBackup<>(
            new String[] {"@redis|u"}, new StoredState[] {kept}, new long[] {-1});
    assertThat(roundTrip(backup)).isEqualTo(backup);

    StoredState without =
        new StoredState(kept.fingerprint(), kept.values(), ReservationLedger.EMPTY);
    assertThat(SERIALIZATION.toData(StateValue.of(without)).toByteArray())
        .as("a state without its writer is written as before")
        .hasSizeLessThan(SERIALIZATION.toData(StateValue.of(kept)).toByteArray().length);

    KeyCommand underName =
        KeyCommand.of(PolicyRef.inlineUnder("redis", gcra), "user123", KeyOp.acquire(1));
    assertThat(underName.stateKey()).isEqualTo("@redis|user123");
    DecideProcessor back =
        roundTrip(new DecideProcessor(new KeyCommand[] {underName}, new int[] {3}));
    assertThat(back.commands()).containsExactly(underName);
    assertThat(((PolicyRef.Inline) back.commands()[0].ref()).stateName()).isEqualTo("redis");
  }

  /**
   * The ids callers hold name their rule or inline policy themselves, in one codec: a rule, an
   * inline policy, and one under a state name each read back as they were written, in a receipt
   * (still sealed: its tag covers the reference) and in a reservation id alike.
   */
  @Test
  void receiptsAndReservationIds_roundTripEveryKindOfReference() {
    ReceiptKey key = ReceiptKey.random();
    for (PolicyRef ref :
        List.of(
            PolicyRef.rule("login"),
            PolicyRef.inline(TWO_LIMITS),
            PolicyRef.inlineUnder("redis", GCRA),
            PolicyRef.inlineUnder("redis", TWO_LIMITS))) {
      Receipt receipt = Receipt.issue(ref, "user123", 3, 1_767_265_200_000_000_011L, 0, -42, key);
      Receipt back = Receipt.parse(receipt.encode());
      assertThat(back).as("%s", ref).isEqualTo(receipt);
      assertThat(back.ref()).isEqualTo(ref);
      assertThat(back.sealedWith(key)).isTrue();
      ReservationId id = new ReservationId(ref, "user123", 7, 1_767_265_260_000_000_000L);
      assertThat(ReservationId.parse(id.encode())).as("%s", ref).isEqualTo(id);
    }
    Receipt named = Receipt.issue(PolicyRef.inline(GCRA), "u", 1, 1L, 0, 1, key);
    Receipt underName = Receipt.issue(PolicyRef.inlineUnder("redis", GCRA), "u", 1, 1L, 0, 1, key);
    assertThat(underName.encode())
        .as("a state name changes what the receipt proves")
        .isNotEqualTo(named.encode());
  }

  @Test
  void storeStatesBackup_roundTrips() {
    StoreStatesBackup<?> backup =
        new StoreStatesBackup<>(
            new String[] {"a|1", "b|2", "c|3"},
            new StoredState[] {
              new StoredState(1, new long[] {1, 2, 3}), new StoredState(2, new long[0]), null
            },
            new long[] {1_000, 120_000, -1});
    assertThat(roundTrip(backup)).isEqualTo(backup);
    assertThatThrownBy(
            () -> new StoreStatesBackup<>(new String[] {"a|1"}, new StoredState[0], new long[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("one state and one TTL per key");
  }

  /** One backup stores what its owner wrote and removes what its owner swept, nothing else. */
  @Test
  void storeStatesBackup_storesStates_andRemovesNullOnes() {
    StoredState written = new StoredState(1, new long[] {1, 2, 3});
    StoredState untouched = new StoredState(2, new long[] {4});
    StoreStatesBackup<?> backup =
        roundTrip(
            new StoreStatesBackup<>(
                new String[] {"a|1", "b|2"},
                new StoredState[] {written, null},
                new long[] {-1, -1}));
    Map.Entry<String, StateValue> stored = new AbstractMap.SimpleEntry<>("a|1", null);
    Map.Entry<String, StateValue> swept =
        new AbstractMap.SimpleEntry<>("b|2", StateValue.of(untouched));
    Map.Entry<String, StateValue> other =
        new AbstractMap.SimpleEntry<>("c|3", StateValue.of(untouched));
    for (Map.Entry<String, StateValue> entry : List.of(stored, swept, other)) {
      backup.process(entry);
    }
    assertThat(stored.getValue().toStored()).isEqualTo(written);
    assertThat(swept.getValue()).isNull();
    assertThat(other.getValue().toStored()).isEqualTo(untouched);
  }

  @Test
  void sweepTypes_roundTrip() {
    assertThat(roundTrip(new SweepProcessor()).getClassId())
        .isEqualTo(SluiceSerializationIds.SWEEP);
    StoreStatesBackup<?> backup = StoreStatesBackup.removing(new String[] {"a|1", "b|2"});
    assertThat(roundTrip(backup)).isEqualTo(backup);
  }

  @Test
  void peekProcessor_andRuleTypes_roundTrip() {
    PeekProcessor peek =
        roundTrip(new PeekProcessor(KeyCommand.of(PolicyRef.inline(GCRA), "bob", KeyOp.peek())));
    assertThat(peek.getClassId()).isEqualTo(SluiceSerializationIds.PEEK);
    RuleRecord record =
        new RuleRecord("api", GCRA, 7, List.of(TWO_LIMITS, Policy.of(3, Duration.ofMinutes(1))));
    assertThat(roundTrip(record)).isEqualTo(record);
    Policy banning =
        Policy.builder()
            .limit(3)
            .window(Duration.ofHours(1))
            .onDenied(Policy.OnDenied.SHADOW_BAN)
            .build();
    RuleRecord invites = new RuleRecord("invites", banning, 9);
    assertThat(roundTrip(invites)).isEqualTo(invites);
    assertThat(roundTrip(invites).policy().shadowBans()).isTrue();
    // Each of a policy's flags has a bit of its own: all of them set at once read back apart.
    Policy everyFlag =
        Policy.builder()
            .limit(3)
            .window(Duration.ofHours(1))
            .countDenied(true)
            .leases(Policy.Leases.OFF)
            .onDenied(Policy.OnDenied.SHADOW_BAN)
            .release(Policy.Release.OPEN)
            .build();
    RuleRecord flagged = new RuleRecord("flagged", everyFlag, 10);
    assertThat(roundTrip(flagged)).isEqualTo(flagged);
    for (Policy one :
        List.of(
            everyFlag.withShadow(false),
            new Policy(
                everyFlag.limits(),
                false,
                false,
                Policy.Leases.AUTO,
                Policy.OnDenied.REJECT,
                Policy.Release.OPEN),
            new Policy(
                everyFlag.limits(),
                true,
                false,
                Policy.Leases.AUTO,
                Policy.OnDenied.REJECT,
                Policy.Release.OPEN))) {
      RuleRecord single = new RuleRecord("one", one, 11);
      assertThat(roundTrip(single).policy()).isEqualTo(one);
    }
    RuleRecord tombstone = new RuleRecord("gone", null, 8);
    assertThat(roundTrip(tombstone)).isEqualTo(tombstone);
    assertThat(roundTrip(new RuleUpdateProcessor(TWO_LIMITS)).getClassId())
        .isEqualTo(SluiceSerializationIds.RULE_UPDATE);
    assertThat(roundTrip(new RulePushTask(record)).getClassId())
        .isEqualTo(SluiceSerializationIds.RULE_PUSH);
  }

  @Test
  void nodeStatsTask_roundTrips() {
    NodeStatsTask task = new NodeStatsTask(1_800_000_000L, 60, "login");

    assertThat(roundTrip(task)).usingRecursiveComparison().isEqualTo(task);
    assertThat(roundTrip(new NodeStatsTask(1, 0, null)))
        .usingRecursiveComparison()
        .isEqualTo(new NodeStatsTask(1, 0, null));
  }

  /**
   * Bytes of a layout this build does not write are refused by their format byte, naming it: a
   * record without one (the first byte of a name's length, 0), and a policy of an earlier format.
   */
  @Test
  void ruleRecord_unknownFormatBytes_areRefusedByName() throws Exception {
    ObjectDataOutput noFormat = SERIALIZATION.createObjectDataOutput();
    noFormat.writeString("sms");
    assertThatThrownBy(() -> readRuleRecord(noFormat.toByteArray()))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("unknown rule record format 0");

    ObjectDataOutput earlierPolicy = SERIALIZATION.createObjectDataOutput();
    new RuleRecord("sms", Policy.of(30, Duration.ofMinutes(1)), 4).writeData(earlierPolicy);
    byte[] bytes = earlierPolicy.toByteArray();
    int policyAt = 1 + 4 + 3 + 1 + 1; // format, name (length, "sms"), version 4, has policy
    assertThat(bytes[policyAt]).isEqualTo((byte) WireFormat.POLICY_FORMAT);
    bytes[policyAt] = 2;
    assertThatThrownBy(() -> readRuleRecord(bytes))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("unknown policy format 2");
  }

  private static RuleRecord readRuleRecord(byte[] bytes) throws Exception {
    RuleRecord read = new RuleRecord();
    read.readData(SERIALIZATION.createObjectDataInput(bytes));
    return read;
  }

  /** A rule change that alters the shape keeps the old policy, once per shape, newest first. */
  @Test
  void ruleRecord_next_keepsFormerShapesOnly() {
    Policy perMinute = Policy.of(3, Duration.ofMinutes(1));
    Policy perMinuteMore = Policy.of(5, Duration.ofMinutes(1));
    Policy perHour = Policy.of(3, Duration.ofHours(1));
    RuleRecord first = new RuleRecord("t", perMinute, 1);

    RuleRecord limitOnly = first.next(perMinuteMore);
    assertThat(limitOnly.version()).isEqualTo(2);
    assertThat(limitOnly.former()).isEmpty();

    RuleRecord reshaped = limitOnly.next(perHour);
    assertThat(reshaped.former()).containsExactly(perMinuteMore);

    RuleRecord back = reshaped.next(perMinute);
    assertThat(back.former()).containsExactly(perHour);

    RuleRecord removed = back.next(null);
    assertThat(removed.isRemoved()).isTrue();
    assertThat(removed.former()).containsExactly(perMinute, perHour);
  }

  @Test
  void factory_createsEveryId_andRefusesUnknownOnes() {
    SluiceDataSerializableFactory factory = new SluiceDataSerializableFactory();
    for (int id :
        new int[] {
          SluiceSerializationIds.DECIDE,
          SluiceSerializationIds.STORE_STATES_BACKUP,
          SluiceSerializationIds.PEEK,
          SluiceSerializationIds.RULE_RECORD,
          SluiceSerializationIds.RULE_UPDATE,
          SluiceSerializationIds.RULE_PUSH,
          SluiceSerializationIds.MOST_CONSUMED_MERGE_POLICY,
          SluiceSerializationIds.SWEEP,
          SluiceSerializationIds.NODE_STATS
        }) {
      assertThat(factory.create(id).getClassId()).isEqualTo(id);
      assertThat(factory.create(id).getFactoryId()).isEqualTo(SluiceSerializationIds.FACTORY_ID);
    }
    assertThatThrownBy(() -> factory.create(999)).isInstanceOf(IllegalArgumentException.class);
    for (int retired :
        new int[] {
          SluiceSerializationIds.RETIRED_STATE,
          SluiceSerializationIds.RETIRED_ACQUIRE,
          SluiceSerializationIds.RETIRED_KEY_OUTCOME,
          SluiceSerializationIds.RETIRED_SWEEP_BACKUP
        }) {
      assertThatThrownBy(() -> factory.create(retired))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * A sliding_window state of a one-minute rule, [window start 2026-01-01T11:00Z, current 3,
   * previous 5] with fingerprint 0x12345678, as the state map stores it (after Hazelcast's 8-byte
   * header). Format 4: the window start is 1,767,265,200 × 10^9 ns. A change here is a change of
   * the stored format.
   */
  private static final String SCALED_FIXTURE = "04123456780683bbcad5341828";

  /** The same counts after an unaligned start (+1 ns): format 3, plain zig-zag varints. */
  private static final String VARINT_FIXTURE = "0312345678068280c7dec095cb8631060a";

  @Test
  void gridState_writesTheShorterFormat_pinnedBytes() throws Exception {
    long start = 1_767_265_200_000_000_000L;
    assertThat(stateBytes(new StoredState(0x12345678, new long[] {start, 3, 5})))
        .isEqualTo(SCALED_FIXTURE);
    assertThat(stateBytes(new StoredState(0x12345678, new long[] {start + 1, 3, 5})))
        .isEqualTo(VARINT_FIXTURE);
    assertThat(readState(SCALED_FIXTURE))
        .isEqualTo(new StoredState(0x12345678, new long[] {start, 3, 5}));
    assertThat(readState(VARINT_FIXTURE))
        .isEqualTo(new StoredState(0x12345678, new long[] {start + 1, 3, 5}));
  }

  /** What S6 of the load harness stored per key: 8 bytes of Hazelcast header, 13 of state. */
  @Test
  void gridState_oneMinuteSlidingWindow_takesTwentyOneBytes() {
    long start = 29_454_420L * 60_000_000_000L;
    Data data = SERIALIZATION.toData(new StoredState(-1, new long[] {start, 1, 0}));
    assertThat(data.totalSize()).isEqualTo(21);
  }

  @Test
  void gridState_refusesCorruptBytes_withClearErrors() {
    assertThatThrownBy(() -> readState("0212345678068080c7dec095cb8631060a"))
        .hasMessage("unknown state format 2");
    assertThatThrownBy(() -> readState("09")).hasMessageContaining("unknown state format 9");
    assertThatThrownBy(() -> readState("0412345678")).isInstanceOf(java.io.IOException.class);
    assertThatThrownBy(() -> readState("04123456788080808008"))
        .hasMessageContaining("implausible state length");
    // Format 4, one value: m = 2^60 at scale 10^9 does not fit a long.
    assertThatThrownBy(() -> readState("041234567802" + "83808080808080808001"))
        .hasMessageContaining("out of range");
  }

  private static String stateBytes(StoredState state) throws Exception {
    ObjectDataOutput out = SERIALIZATION.createObjectDataOutput();
    new StoredStateSerializer().write(out, state);
    return HexFormat.of().formatHex(out.toByteArray());
  }

  private static StoredState readState(String hex) throws Exception {
    return new StoredStateSerializer()
        .read(SERIALIZATION.createObjectDataInput(HexFormat.of().parseHex(hex)))
        .toStored();
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
