package dev.sluice.core.grid.member;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateFormat;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The backup side of {@link DecideProcessor}: stores the states the owner computed, with the same
 * time-to-live, or none ({@link StateTtl#NONE}, sent as -1). It reads no clock and runs no
 * algorithm, so a backup can never disagree with its owner (docs/grid.md).
 */
public final class StoreStatesBackup
    implements EntryProcessor<String, StateValue, KeyOutcome>, IdentifiedDataSerializable {
  private static final int FORMAT = 1;

  private String[] keys;
  private StoredState[] states;
  private long[] ttlMillis;

  /** For deserialization. */
  public StoreStatesBackup() {
    this(new String[0], new StoredState[0], new long[0]);
  }

  public StoreStatesBackup(String[] keys, StoredState[] states, long[] ttlMillis) {
    this.keys = keys;
    this.states = states;
    this.ttlMillis = ttlMillis;
  }

  @Override
  public @Nullable KeyOutcome process(Map.Entry<String, StateValue> entry) {
    String key = entry.getKey();
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        DecideProcessor.store(entry, StateValue.of(states[i]), ttlMillis[i]);
        break;
      }
    }
    return null;
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, KeyOutcome> getBackupProcessor() {
    return null;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.STORE_STATES_BACKUP;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    WireFormat.writeVarInt(out, keys.length);
    for (int i = 0; i < keys.length; i++) {
      out.writeString(keys[i]);
      StateFormat.write(out, states[i]);
      WireFormat.writeVarLong(out, ttlMillis[i]);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown backup format " + format);
    }
    int n = WireFormat.readVarInt(in);
    if (n < 0 || n > WireFormat.MAX_OPS_PER_KEY) {
      throw new IOException("implausible key count " + n);
    }
    keys = new String[n];
    states = new StoredState[n];
    ttlMillis = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = Objects.requireNonNull(in.readString(), "key");
      states[i] = StateFormat.read(in);
      ttlMillis[i] = WireFormat.readVarLong(in);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoreStatesBackup other
        && Arrays.equals(keys, other.keys)
        && Arrays.equals(states, other.states)
        && Arrays.equals(ttlMillis, other.ttlMillis);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys);
  }
}
