package dev.sluice.core.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import dev.sluice.core.decision.StoredState;
import java.io.IOException;

/**
 * Hazelcast's serializer for the state map's values, registered by {@code SluiceHazelcast} on
 * members and clients for {@link StateValue} and {@link StoredState}. The format is {@link
 * StateFormat}'s whichever of the two is written. Reading always answers a {@link StateValue}, the
 * compact form a member keeps in its map. A stream serializer spares every stored copy the header
 * an IdentifiedDataSerializable would carry.
 */
public final class StoredStateSerializer implements StreamSerializer<Object> {

  @Override
  public int getTypeId() {
    return SluiceSerializationIds.STATE_TYPE_ID;
  }

  @Override
  public void write(ObjectDataOutput out, Object state) throws IOException {
    StateFormat.write(
        out, state instanceof StateValue value ? value.toStored() : (StoredState) state);
  }

  @Override
  public StateValue read(ObjectDataInput in) throws IOException {
    return StateValue.of(StateFormat.read(in));
  }
}
