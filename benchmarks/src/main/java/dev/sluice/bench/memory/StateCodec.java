package dev.sluice.bench.memory;

import dev.sluice.core.decision.StoredState;
import org.jspecify.annotations.Nullable;

/** How a candidate stores a sliding_window state ({@code long[] {start, current, previous}}). */
enum StateCodec {
  /** Today's value: {@link StoredState} with its policy fingerprint, Sluice's own serializer. */
  GRIDSTATE {
    @Override
    Object encode(long[] state) {
      return new StoredState(MemoryProbe.FINGERPRINT, state);
    }

    @Override
    long @Nullable [] decode(Object stored) {
      StoredState s = (StoredState) stored;
      return s.fingerprint() == MemoryProbe.FINGERPRINT ? s.values().clone() : null;
    }
  },
  /** {@link TightState}: 7 bytes, written raw by its own serializer (for BINARY maps). */
  TIGHT {
    @Override
    Object encode(long[] state) {
      return new TightState(TightState.encode(state, MemoryProbe.WINDOW_NANOS));
    }

    @Override
    long @Nullable [] decode(Object stored) {
      return TightState.decode(((TightState) stored).bytes, MemoryProbe.WINDOW_NANOS);
    }
  },
  /**
   * The same 7 bytes as a plain {@code byte[]}: in an OBJECT map the record then points at one
   * 24-byte array and nothing else (a BINARY map would add Hazelcast's 4-byte array length).
   */
  BYTES {
    @Override
    Object encode(long[] state) {
      return TightState.encode(state, MemoryProbe.WINDOW_NANOS);
    }

    @Override
    long @Nullable [] decode(Object stored) {
      return TightState.decode((byte[]) stored, MemoryProbe.WINDOW_NANOS);
    }
  };

  abstract Object encode(long[] state);

  /** The stored state, or null if it belongs to another policy. */
  abstract long @Nullable [] decode(Object stored);
}
