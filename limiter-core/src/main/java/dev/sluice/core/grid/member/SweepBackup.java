package dev.sluice.core.grid.member;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The backup side of {@link SweepProcessor}: removes from a backup partition exactly the keys its
 * owner removed. It judges nothing (no clock, no rules), so a backup holds the same states as its
 * owner after a sweep as after a decision (docs/grid.md). Hazelcast runs it over the backup
 * partition's entries in order with the partition's other backup operations, so a state written
 * after the sweep arrives after it and is kept.
 */
public final class SweepBackup
    implements EntryProcessor<String, StateValue, Object>, IdentifiedDataSerializable {
  private static final int FORMAT = 1;

  private String[] keys;
  private transient @Nullable Set<String> index;

  /** For deserialization. */
  public SweepBackup() {
    this(new String[0]);
  }

  public SweepBackup(String[] keys) {
    this.keys = keys;
  }

  @Override
  public @Nullable Object process(Map.Entry<String, StateValue> entry) {
    Set<String> removed = index;
    if (removed == null) {
      removed = new HashSet<>(Arrays.asList(keys));
      index = removed;
    }
    if (removed.contains(entry.getKey())) {
      entry.setValue(null);
    }
    return null;
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, Object> getBackupProcessor() {
    return null;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.SWEEP_BACKUP;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    WireFormat.writeVarInt(out, keys.length);
    for (String key : keys) {
      out.writeString(key);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown sweep backup format " + format);
    }
    int n = WireFormat.readVarInt(in);
    if (n < 0 || n > WireFormat.MAX_OPS_PER_KEY) {
      throw new IOException("implausible key count " + n);
    }
    keys = new String[n];
    for (int i = 0; i < n; i++) {
      keys[i] = Objects.requireNonNull(in.readString(), "key");
    }
    index = null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SweepBackup other && Arrays.equals(keys, other.keys);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys);
  }
}
