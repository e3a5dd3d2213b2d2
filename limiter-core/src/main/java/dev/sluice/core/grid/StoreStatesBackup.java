package dev.sluice.core.grid;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The backup side of {@link AcquireProcessor}: stores the states the owner computed, with the same
 * time-to-live. It reads no clock and runs no algorithm, so a backup can never disagree with its
 * owner (DESIGN §3).
 */
public final class StoreStatesBackup
    implements EntryProcessor<String, GridState, KeyOutcome>, IdentifiedDataSerializable {
  private String[] keys;
  private GridState[] states;
  private long[] ttlMillis;

  /** For deserialization. */
  public StoreStatesBackup() {
    this(new String[0], new GridState[0], new long[0]);
  }

  StoreStatesBackup(String[] keys, GridState[] states, long[] ttlMillis) {
    this.keys = keys;
    this.states = states;
    this.ttlMillis = ttlMillis;
  }

  static StoreStatesBackup of(List<KeyRequests> changed) {
    int n = changed.size();
    String[] keys = new String[n];
    GridState[] states = new GridState[n];
    long[] ttls = new long[n];
    for (int i = 0; i < n; i++) {
      KeyRequests r = changed.get(i);
      keys[i] = r.key;
      states[i] = Objects.requireNonNull(r.written);
      ttls[i] = r.ttlMillis;
    }
    return new StoreStatesBackup(keys, states, ttls);
  }

  @Override
  public KeyOutcome process(Map.Entry<String, GridState> entry) {
    String key = entry.getKey();
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        ((ExtendedMapEntry<String, GridState>) entry)
            .setValue(states[i], ttlMillis[i], TimeUnit.MILLISECONDS);
        break;
      }
    }
    return null;
  }

  @Override
  public EntryProcessor<String, GridState, KeyOutcome> getBackupProcessor() {
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
    WireFormat.writeVarInt(out, keys.length);
    for (int i = 0; i < keys.length; i++) {
      out.writeString(keys[i]);
      states[i].writeTo(out);
      WireFormat.writeVarLong(out, ttlMillis[i]);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int n = WireFormat.readVarInt(in);
    if (n < 0 || n > AcquireProcessor.MAX_REQUESTS_PER_KEY) {
      throw new IOException("implausible key count " + n);
    }
    keys = new String[n];
    states = new GridState[n];
    ttlMillis = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = Objects.requireNonNull(in.readString(), "key");
      states[i] = GridState.readFrom(in);
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
