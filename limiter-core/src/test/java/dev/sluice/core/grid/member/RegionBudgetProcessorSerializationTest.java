package dev.sluice.core.grid.member;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.core.region.RegionBudget;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every step of {@link RegionBudgetProcessor} and its {@link RegionBudgetProcessor.Result}
 * round-trip through the member's serialization, plain and paced grants alike; a step of an unknown
 * kind is refused by its code.
 */
class RegionBudgetProcessorSerializationTest {
  private static final InternalSerializationService SERIALIZATION = serializationService();
  private static final UUID MEMBER = new UUID(7, 11);
  private static final RegionBudget.Grant PLAIN =
      new RegionBudget.Grant(4, 1_000_000_000L, 123, 900_000_000L, 42);
  private static final RegionBudget.Grant PACED =
      new RegionBudget.Grant(5, 75_000_000L, 456, 100_000_000L, 42, 25_000_000L, 10_000_000L);

  private static InternalSerializationService serializationService() {
    SerializationConfig config = new SerializationConfig();
    SluiceHazelcast.configureSerialization(config);
    return new DefaultSerializationServiceBuilder().setConfig(config).build();
  }

  /** The object read back from {@code object}'s bytes, which writes the same bytes again. */
  private static <T> T roundTrip(T object) {
    Data data = SERIALIZATION.toData(object);
    assertThat(data.getType()).as("identified, never Java serialization").isEqualTo(-2);
    T read = SERIALIZATION.toObject(data);
    assertThat(SERIALIZATION.toData(read).toByteArray()).isEqualTo(data.toByteArray());
    return read;
  }

  @Test
  void everyStep_roundTrips() {
    List<RegionBudgetProcessor> steps =
        List.of(
            RegionBudgetProcessor.spend(3, 42, 50_000_000L),
            RegionBudgetProcessor.deposit(MEMBER, PLAIN),
            RegionBudgetProcessor.deposit(MEMBER, PACED),
            RegionBudgetProcessor.sweep(MEMBER),
            RegionBudgetProcessor.takeAll(),
            RegionBudgetProcessor.refillFailed(),
            RegionBudgetProcessor.denied(
                MEMBER, 2, new RegionBudgetProcessor.Denial(5, 300_000_000L, 800_000_000L)));
    for (RegionBudgetProcessor step : steps) {
      assertThat(roundTrip(step)).isInstanceOf(RegionBudgetProcessor.class);
    }
  }

  @Test
  void result_roundTripsEveryField_andItsGrants() {
    RegionBudgetProcessor.Result result =
        new RegionBudgetProcessor.Result(
            false, 9_000_000L, 7, 8, 12, 20, 40, List.of(PLAIN, PACED));
    RegionBudgetProcessor.Result read = roundTrip(result);
    assertThat(read.answered()).isFalse();
    assertThat(read.usableInNanos()).isEqualTo(9_000_000L);
    assertThat(read.deniedForNanos()).isEqualTo(7);
    assertThat(read.deniedResetAfterNanos()).isEqualTo(8);
    assertThat(read.held()).isEqualTo(12);
    assertThat(read.refillAsk()).isEqualTo(20);
    assertThat(read.ask()).isEqualTo(40);
    assertThat(read.giveBack()).containsExactly(PLAIN, PACED);
  }

  @Test
  void backup_roundTrips_aBudgetAndARemoval() {
    RegionBudget budget = RegionBudget.empty();
    budget.deposit(PLAIN, 0);
    roundTrip(new RegionBudgetProcessor.Backup(budget.values()));
    roundTrip(new RegionBudgetProcessor.Backup(null));
  }

  @Test
  void aStepOfAnUnknownKind_isRefusedByItsCode() {
    byte[] bytes = SERIALIZATION.toData(RegionBudgetProcessor.takeAll()).toByteArray();
    // The kind's code is the first byte after the header and the factory and class ids.
    int at = bytes.length - (8 + 4 + 8 + 8 + 8 + 1 + 1) - 1;
    assertThat(bytes[at]).isEqualTo((byte) RegionBudgetProcessor.Kind.TAKE_ALL.code);
    bytes[at] = 99;
    assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
        .isInstanceOf(HazelcastSerializationException.class)
        .hasStackTraceContaining("unknown region budget step code 99");
  }
}
