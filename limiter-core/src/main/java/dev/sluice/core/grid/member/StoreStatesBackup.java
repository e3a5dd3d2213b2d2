package dev.sluice.core.grid.member;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateFormat;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The backup side of {@link DecideProcessor} and {@link SweepProcessor}: stores on a backup replica
 * the states its owner wrote, with the same time-to-live or none ({@link StateTtl#NONE}, sent as
 * -1), and removes the keys its owner removed (a null state). It reads no clock, runs no algorithm
 * and consults no rules, so a backup can never disagree with its owner (docs/grid.md). Hazelcast
 * runs it in order with the partition's other backup operations, so a state written after a sweep
 * arrives after it and is kept.
 *
 * <p>A decision's backup names the keys it wrote; a sweep's runs over every entry of the partition,
 * which is why a backup of several keys finds a key through an index rather than a scan.
 *
 * <h2>Format</h2>
 *
 * {@code [format 1][n][n × (key, present: boolean, if present (state, ttl: varlong))]}.
 *
 * @param <R> the result type of the owner's processor; a backup returns nothing
 */
public final class StoreStatesBackup<R>
    implements EntryProcessor<String, StateValue, R>, IdentifiedDataSerializable {
  private static final int FORMAT = 1;

  private String[] keys;
  private @Nullable StoredState[] states;
  private long[] ttlMillis;
  private transient @Nullable Map<String, Integer> index;

  /** For deserialization. */
  public StoreStatesBackup() {
    this(new String[0], new StoredState[0], new long[0]);
  }

  /** Stores {@code states[i]} under {@code keys[i]} with {@code ttlMillis[i]}; null removes it. */
  public StoreStatesBackup(String[] keys, @Nullable StoredState[] states, long[] ttlMillis) {
    if (keys.length != states.length || keys.length != ttlMillis.length) {
      throw new IllegalArgumentException("one state and one TTL per key");
    }
    this.keys = keys;
    this.states = states;
    this.ttlMillis = ttlMillis;
  }

  /** Removes {@code keys}: what a sweep's owner removed. */
  public static <R> StoreStatesBackup<R> removing(String[] keys) {
    long[] noTtl = new long[keys.length];
    Arrays.fill(noTtl, StateTtl.NONE);
    return new StoreStatesBackup<>(keys, new StoredState[keys.length], noTtl);
  }

  @Override
  public @Nullable R process(Map.Entry<String, StateValue> entry) {
    int i = indexOf(entry.getKey());
    if (i >= 0) {
      StoredState state = states[i];
      if (state == null) {
        entry.setValue(null);
      } else {
        DecideProcessor.store(entry, StateValue.of(state), ttlMillis[i]);
      }
    }
    return null;
  }

  private int indexOf(String key) {
    if (keys.length == 1) {
      return keys[0].equals(key) ? 0 : -1;
    }
    Map<String, Integer> byKey = index;
    if (byKey == null) {
      byKey = new HashMap<>(keys.length * 2);
      for (int i = 0; i < keys.length; i++) {
        byKey.put(keys[i], i);
      }
      index = byKey;
    }
    return byKey.getOrDefault(key, -1);
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, R> getBackupProcessor() {
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
      StoredState state = states[i];
      out.writeBoolean(state != null);
      if (state != null) {
        StateFormat.write(out, state);
        WireFormat.writeVarLong(out, ttlMillis[i]);
      }
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
    Arrays.fill(ttlMillis, StateTtl.NONE);
    for (int i = 0; i < n; i++) {
      keys[i] = Objects.requireNonNull(in.readString(), "key");
      if (in.readBoolean()) {
        states[i] = StateFormat.read(in);
        ttlMillis[i] = WireFormat.readVarLong(in);
      }
    }
    index = null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoreStatesBackup<?> other
        && Arrays.equals(keys, other.keys)
        && Arrays.equals(states, other.states)
        && Arrays.equals(ttlMillis, other.ttlMillis);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys);
  }
}
