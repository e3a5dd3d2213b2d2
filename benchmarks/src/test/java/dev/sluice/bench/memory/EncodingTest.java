package dev.sluice.bench.memory;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The candidates' key and value encodings: round trips and the payload sizes docs/memory.md uses.
 */
class EncodingTest {
  private static final InternalSerializationService SS = serializationService();

  private static InternalSerializationService serializationService() {
    SerializationConfig config = new SerializationConfig();
    BenchSerialization.configure(config);
    return new DefaultSerializationServiceBuilder().setConfig(config).build();
  }

  @Test
  void compactKey_roundTrips_inSixteenBytes() {
    CompactKey key = new CompactKey(1, "m123456".getBytes(StandardCharsets.UTF_8));
    Data data = SS.toData(key);
    assertThat(data.totalSize()).isEqualTo(16); // 8 B header + 1 B rule id + 7 B subject
    CompactKey read = SS.toObject(data);
    assertThat(read).isEqualTo(key);
    assertThat(SS.toData("mem|m123456").totalSize()).isEqualTo(23);
  }

  @Test
  void compactKey_longRuleIdAndEmptySubject_roundTrip() {
    CompactKey key = new CompactKey(300_000, new byte[0]);
    CompactKey read = SS.toObject(SS.toData(key));
    assertThat(read).isEqualTo(key);
  }

  @Test
  void tightState_tenMinuteWindowIn2026_takesSevenBytes_andRoundTrips() {
    long window = MemoryProbe.WINDOW_NANOS;
    long[] state = {2_960_000L * window, 1, 0};
    byte[] bytes = TightState.encode(state, window);
    assertThat(bytes).hasSize(7);
    assertThat(TightState.decode(bytes, window)).containsExactly(state);
    Data data = SS.toData(new TightState(bytes));
    assertThat(data.totalSize()).isEqualTo(15);
    assertThat(((TightState) SS.toObject(data)).bytes).isEqualTo(bytes);
  }

  @Test
  void tightState_largeCounts_roundTrip() {
    long window = MemoryProbe.WINDOW_NANOS;
    long[] state = {0, 1_000_000_000L, 999_999_999L};
    assertThat(TightState.decode(TightState.encode(state, window), window)).containsExactly(state);
    TightState tight = new TightState(TightState.encode(state, window));
    assertThat(((TightState) SS.toObject(SS.toData(tight))).bytes).isEqualTo(tight.bytes);
  }
}
