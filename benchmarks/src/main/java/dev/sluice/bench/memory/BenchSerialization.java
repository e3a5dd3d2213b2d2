package dev.sluice.bench.memory;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.config.SerializerConfig;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/** Serialization ids of the memory probe's own types (not Sluice's: a separate factory). */
final class BenchSerialization {
  static final int FACTORY_ID = 7_582_400;
  static final int CANDIDATE_PROCESSOR = 1;
  static final int STORE_BACKUP = 2;
  static final int BUCKET_PROCESSOR = 3;
  static final int BUCKET_BACKUP = 4;
  static final int SWEEP_PROCESSOR = 5;

  static final int COMPACT_KEY_TYPE_ID = FACTORY_ID + 1;
  static final int TIGHT_STATE_TYPE_ID = FACTORY_ID + 2;

  private BenchSerialization() {}

  static void configure(SerializationConfig serialization) {
    serialization.addDataSerializableFactory(FACTORY_ID, new Factory());
    serialization.addSerializerConfig(
        new SerializerConfig()
            .setImplementation(new CompactKey.Serializer())
            .setTypeClass(CompactKey.class));
    serialization.addSerializerConfig(
        new SerializerConfig()
            .setImplementation(new TightState.Serializer())
            .setTypeClass(TightState.class));
  }

  private static final class Factory implements DataSerializableFactory {
    @Override
    public IdentifiedDataSerializable create(int typeId) {
      return switch (typeId) {
        case CANDIDATE_PROCESSOR -> new CandidateProcessor();
        case STORE_BACKUP -> new CandidateProcessor.StoreBackup();
        case BUCKET_PROCESSOR -> new BucketProcessor();
        case BUCKET_BACKUP -> new BucketProcessor.Backup();
        case SWEEP_PROCESSOR -> new SweepProcessor();
        default -> throw new IllegalArgumentException("unknown bench type id " + typeId);
      };
    }
  }
}
