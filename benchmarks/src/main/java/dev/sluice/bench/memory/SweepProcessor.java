package dev.sluice.bench.memory;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Candidate (a)'s cleanup step: removes every state of a partition that is fresh at {@code
 * nowNanos} (decides exactly as an absent key would, {@code LimiterAlgorithm.untilFreshNanos} = 0),
 * and compacts bucket tables the same way. {@link Sweeper} runs it over one partition at a time
 * with {@code IMap.executeOnEntries(processor, partitionPredicate)}.
 *
 * <p>{@code now} travels with the processor: the member that schedules the sweep reads its clock
 * once, minus a safety margin, and the backup replica applies the same processor (Hazelcast runs
 * the backup processor over the backup partition with the same predicate) with the same {@code
 * now}, so owner and backup remove the same entries and the backup never reads its own clock. A
 * state written after the sweep's {@code now} is never fresh at that {@code now}, so a sweep that
 * reaches a backup after a newer write keeps the newer state.
 */
final class SweepProcessor
    implements EntryProcessor<Object, Object, Object>, IdentifiedDataSerializable {
  private long nowNanos;
  private StateCodec codec = StateCodec.GRIDSTATE;
  private boolean buckets;

  /** For deserialization. */
  public SweepProcessor() {}

  SweepProcessor(long nowNanos, StateCodec codec, boolean buckets) {
    this.nowNanos = nowNanos;
    this.codec = codec;
    this.buckets = buckets;
  }

  @Override
  public @Nullable Object process(Map.Entry<Object, Object> entry) {
    Object value = entry.getValue();
    if (value == null) {
      return null;
    }
    if (buckets) {
      byte[] table = (byte[]) value;
      byte[] compacted =
          BucketTable.compact(table, nowNanos, MemoryProbe.ALGORITHM, MemoryProbe.WINDOW_NANOS);
      if (compacted != table) {
        // A bucket that still has live keys keeps no TTL in this design (sweep instead of TTL).
        entry.setValue(compacted);
      }
      return null;
    }
    long[] state = codec.decode(value);
    if (state == null || MemoryProbe.ALGORITHM.untilFreshNanos(state, nowNanos) == 0) {
      entry.setValue(null);
    }
    return null;
  }

  @Override
  public EntryProcessor<Object, Object, Object> getBackupProcessor() {
    return this;
  }

  @Override
  public int getFactoryId() {
    return BenchSerialization.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return BenchSerialization.SWEEP_PROCESSOR;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeLong(nowNanos);
    out.writeByte(codec.ordinal());
    out.writeBoolean(buckets);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    nowNanos = in.readLong();
    codec = StateCodec.values()[in.readByte()];
    buckets = in.readBoolean();
  }
}
