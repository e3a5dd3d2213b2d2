package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import dev.sluice.core.pipeline.StoredState;
import java.io.IOException;

/**
 * Hazelcast's serializer for {@link StoredState}, the state map's value, registered by {@link
 * SluiceHazelcast} on members and clients. The format is {@link StateFormat}'s; a stream serializer
 * spares every stored copy the header an IdentifiedDataSerializable would carry.
 */
public final class StoredStateSerializer implements StreamSerializer<StoredState> {

  @Override
  public int getTypeId() {
    return SluiceSerializationIds.STATE_TYPE_ID;
  }

  @Override
  public void write(ObjectDataOutput out, StoredState state) throws IOException {
    StateFormat.write(out, state);
  }

  @Override
  public StoredState read(ObjectDataInput in) throws IOException {
    return StateFormat.read(in);
  }
}
