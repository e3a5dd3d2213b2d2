package dev.sluice.bench.memory;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Decision;
import dev.sluice.core.TimeSource;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A candidate design's write path, one key per entry: what {@code DecideProcessor} does for a named
 * sliding_window rule (read the stored state, apply {@code SlidingWindow} at the member's {@code
 * now}, store what changed, hand the stored value to the backup), with the stored key and value in
 * the candidate's encoding and the TTL on or off. It exists so that a candidate's bytes can be
 * measured without changing product code; the memory a map keeps depends only on what is stored,
 * and {@code MemoryProbe} checks that this processor with today's encodings ({@code candidate
 * --key=string --value=gridstate --ttl}) keeps the same bytes as the real path.
 */
final class CandidateProcessor
    implements EntryProcessor<Object, Object, Boolean>, IdentifiedDataSerializable {
  private StateCodec codec = StateCodec.GRIDSTATE;
  private boolean ttl;
  private transient @Nullable Object written;
  private transient long ttlMillis;

  /** For deserialization. */
  public CandidateProcessor() {}

  CandidateProcessor(StateCodec codec, boolean ttl) {
    this.codec = codec;
    this.ttl = ttl;
  }

  @Override
  public Boolean process(Map.Entry<Object, Object> entry) {
    Object stored = entry.getValue();
    long[] before = stored == null ? null : codec.decode(stored);
    long[] state = before != null ? before.clone() : MemoryProbe.ALGORITHM.newState();
    long now = TimeSource.system().nowNanos();
    Decision decision = MemoryProbe.ALGORITHM.apply(state, now, 1);
    if (before == null || !Arrays.equals(before, state)) {
      written = codec.encode(state);
      if (ttl) {
        ttlMillis = ttlMillis(MemoryProbe.ALGORITHM.untilFreshNanos(state, now));
        ((ExtendedMapEntry<Object, Object>) entry)
            .setValue(written, ttlMillis, TimeUnit.MILLISECONDS);
      } else {
        entry.setValue(written);
      }
    }
    return decision.allowed();
  }

  /** {@code StateTtl}'s rule: whole seconds, rounded up, plus one. */
  static long ttlMillis(long untilFreshNanos) {
    long millis = -Math.floorDiv(-Math.max(0, untilFreshNanos), 1_000_000L);
    return (-Math.floorDiv(-millis, 1_000L) + 1) * 1_000L;
  }

  @Override
  public @Nullable EntryProcessor<Object, Object, Boolean> getBackupProcessor() {
    return written == null ? null : new StoreBackup(written, ttl ? ttlMillis : -1);
  }

  @Override
  public int getFactoryId() {
    return BenchSerialization.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return BenchSerialization.CANDIDATE_PROCESSOR;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(codec.ordinal());
    out.writeBoolean(ttl);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    codec = StateCodec.values()[in.readByte()];
    ttl = in.readBoolean();
  }

  /** Stores the owner's value on the backup; never re-decides (it would read another clock). */
  static final class StoreBackup
      implements EntryProcessor<Object, Object, Boolean>, IdentifiedDataSerializable {
    private @Nullable Object value;
    private long ttlMillis;

    /** For deserialization. */
    public StoreBackup() {}

    StoreBackup(Object value, long ttlMillis) {
      this.value = value;
      this.ttlMillis = ttlMillis;
    }

    @Override
    public Boolean process(Map.Entry<Object, Object> entry) {
      if (ttlMillis >= 0) {
        ((ExtendedMapEntry<Object, Object>) entry)
            .setValue(value, ttlMillis, TimeUnit.MILLISECONDS);
      } else {
        entry.setValue(value);
      }
      return Boolean.TRUE;
    }

    @Override
    public @Nullable EntryProcessor<Object, Object, Boolean> getBackupProcessor() {
      return null;
    }

    @Override
    public int getFactoryId() {
      return BenchSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
      return BenchSerialization.STORE_BACKUP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
      out.writeObject(value);
      out.writeLong(ttlMillis);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
      value = in.readObject();
      ttlMillis = in.readLong();
    }
  }
}
