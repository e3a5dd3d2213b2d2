package dev.sluice.bench.memory;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.TimeSource;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Candidate (e) on the grid: decides one key inside its bucket's entry ({@link BucketTable}), one
 * entry processor on the partition that owns the bucket, so a decision stays one atomic step. The
 * bucket of a key is {@code hash64(rule id, subject) mod buckets}; the bucket key is an {@code
 * Integer}. The backup gets ({@link Backup}) the key, its new state and the owner's {@code now},
 * never the whole table, and rebuilds the owner's table from them.
 */
final class BucketProcessor
    implements EntryProcessor<Object, Object, Boolean>, IdentifiedDataSerializable {
  private int ruleId;
  private byte[] subject = new byte[0];
  private boolean ttl;
  private transient long @Nullable [] written;
  private transient long nowNanos;
  private transient long ttlMillis = -1;

  /** For deserialization. */
  public BucketProcessor() {}

  BucketProcessor(int ruleId, byte[] subject, boolean ttl) {
    this.ruleId = ruleId;
    this.subject = subject;
    this.ttl = ttl;
  }

  static int bucketOf(int ruleId, byte[] subject, int buckets) {
    return (int) Math.floorMod(KeyCodec.hash64(ruleId, subject), (long) buckets);
  }

  @Override
  public Boolean process(Map.Entry<Object, Object> entry) {
    nowNanos = TimeSource.system().nowNanos();
    BucketTable.Result result =
        BucketTable.decide(
            (byte[]) entry.getValue(),
            ruleId,
            subject,
            nowNanos,
            1,
            MemoryProbe.ALGORITHM,
            MemoryProbe.WINDOW_NANOS);
    if (result.changed()) {
      written = result.state();
      ttlMillis = store(entry, result.table(), nowNanos, ttl);
    }
    return result.decision().allowed();
  }

  /** Stores {@code table} (removes the entry if null); returns the TTL set, or -1. */
  static long store(
      Map.Entry<Object, Object> entry, byte @Nullable [] table, long now, boolean ttl) {
    if (table == null) {
      entry.setValue(null);
      return -1;
    }
    if (!ttl) {
      entry.setValue(table);
      return -1;
    }
    long ttlMillis =
        CandidateProcessor.ttlMillis(
            BucketTable.untilAllFreshNanos(
                table, now, MemoryProbe.ALGORITHM, MemoryProbe.WINDOW_NANOS));
    ((ExtendedMapEntry<Object, Object>) entry).setValue(table, ttlMillis, TimeUnit.MILLISECONDS);
    return ttlMillis;
  }

  @Override
  public @Nullable EntryProcessor<Object, Object, Boolean> getBackupProcessor() {
    return written == null ? null : new Backup(ruleId, subject, written, nowNanos, ttl);
  }

  @Override
  public int getFactoryId() {
    return BenchSerialization.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return BenchSerialization.BUCKET_PROCESSOR;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeInt(ruleId);
    out.writeByteArray(subject);
    out.writeBoolean(ttl);
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    ruleId = in.readInt();
    subject = in.readByteArray();
    ttl = in.readBoolean();
  }

  /** Rebuilds the owner's table on the backup from the key's new state and the owner's now. */
  static final class Backup
      implements EntryProcessor<Object, Object, Boolean>, IdentifiedDataSerializable {
    private int ruleId;
    private byte[] subject = new byte[0];
    private long[] state = new long[3];
    private long nowNanos;
    private boolean ttl;

    /** For deserialization. */
    public Backup() {}

    Backup(int ruleId, byte[] subject, long[] state, long nowNanos, boolean ttl) {
      this.ruleId = ruleId;
      this.subject = subject;
      this.state = state;
      this.nowNanos = nowNanos;
      this.ttl = ttl;
    }

    @Override
    public Boolean process(Map.Entry<Object, Object> entry) {
      byte[] table =
          BucketTable.rebuild(
              (byte[]) entry.getValue(),
              ruleId,
              subject,
              state,
              nowNanos,
              MemoryProbe.ALGORITHM,
              MemoryProbe.WINDOW_NANOS);
      store(entry, table, nowNanos, ttl);
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
      return BenchSerialization.BUCKET_BACKUP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
      out.writeInt(ruleId);
      out.writeByteArray(subject);
      out.writeLongArray(state);
      out.writeLong(nowNanos);
      out.writeBoolean(ttl);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
      ruleId = in.readInt();
      subject = in.readByteArray();
      state = in.readLongArray();
      nowNanos = in.readLong();
      ttl = in.readBoolean();
    }
  }
}
