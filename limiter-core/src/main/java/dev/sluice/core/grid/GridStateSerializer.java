package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import java.io.IOException;

/**
 * Hazelcast's serializer for {@link GridState}, the state map's value, registered by {@link
 * SluiceHazelcast} on members and clients. The format is {@link GridState}'s own; this class only
 * spares every stored copy the header an IdentifiedDataSerializable would carry.
 */
public final class GridStateSerializer implements StreamSerializer<GridState> {

  @Override
  public int getTypeId() {
    return SluiceSerializationIds.STATE_TYPE_ID;
  }

  @Override
  public void write(ObjectDataOutput out, GridState state) throws IOException {
    state.writeTo(out);
  }

  @Override
  public GridState read(ObjectDataInput in) throws IOException {
    return GridState.readFrom(in);
  }
}
